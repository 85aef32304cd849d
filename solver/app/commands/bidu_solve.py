"""`bidou solve --game bidu`: the two-player vuelta of Bidú solved on the compact model,
its value proved in exact arithmetic (`solver.bidu.solve`)."""

from __future__ import annotations

import json
from typing import Any

import click

from games.bidou.params import ParameterError
from games.bidu.params import BiduParams
from solver.app.commands.printing import gain

SCHEMA = "bidou-bidu-solution"
SCHEMA_VERSION = 1

MEANING = ("value: chips the captain wins per vuelta, replays included (the other player "
           "wins its opposite); a vuelta nobody bets on is played again, so the value is the "
           "fixed point V = G(V) of the one-vuelta game whose replay pays V")


def summary(solution: Any) -> dict[str, Any]:
    """What the command prints, as one JSON object."""
    from solver.hand.exact.certificate import Certificate

    lower, upper = Certificate(solution.lower, solution.upper).decimals(16)
    return {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION,
        "rules": {"game": "bidu", **solution.params.to_dict()},
        "method": "lp",
        "status": "optimal",
        "equilibrium": "plain LP vertex",
        "value": solution.estimate,
        "certified_value": {"lower": str(solution.lower), "upper": str(solution.upper),
                            "lower_decimal": lower, "upper_decimal": upper,
                            "width": float(solution.width)},
        "captain_exploitability": solution.captain_exploitability,
        "opponent_exploitability": solution.other_exploitability,
        "replay_probability": solution.replay_probability,
        "newton_steps": solution.steps,
        "seconds": solution.seconds,
        "meaning": MEANING,
    }


def solve_bidu_command(params: BiduParams, as_json: bool, out: str | None,
                       method: str, exact: bool, plain: bool, other_options: bool) -> None:
    """Solve, print and (with `out`) save the vuelta of `params`."""
    from solver.app.progress import Progress
    from solver.bidu.solve import solve_bidu
    from solver.common.files import check_file_destination, write_json_atomic
    from solver.hand.exact.certificate import Certificate

    if params.players != 2:
        raise ParameterError(f"--players {params.players}: Bidú is solved for two players "
                             f"only (docs/bidu.md)")
    if method != "lp" or other_options:
        raise ParameterError("--game bidu is solved by the LP only: --method, --iterations "
                             "and --target-exploitability do not apply")
    if exact or plain:
        raise ParameterError(f"{'--exact' if exact else '--plain'} does not apply to --game "
                             f"bidu: its value is always proved in an interval, by the plain "
                             f"LP vertex")
    if out is not None:
        check_file_destination(out)
    with Progress(enabled=False if as_json else None) as progress:
        solution = solve_bidu(params, report=lambda what: progress(what))
    result = summary(solution)
    if as_json:
        click.echo(json.dumps(result, indent=1))
    else:
        proof = Certificate(solution.lower, solution.upper)
        lower, upper = proof.decimals(16)
        proved_exactly = proof.exact
        click.echo("\n".join([
            f"rules:          {params.describe()}",
            "method:         lp (optimal), plain LP vertex equilibrium; Newton's method on "
            f"the replay's worth, {solution.steps} LPs",
            f"value:          {solution.estimate:+.12f} chips per vuelta to the captain, "
            f"replays included",
            f"exploitability: captain {gain(solution.captain_exploitability)}, other "
            f"player {gain(solution.other_exploitability)} (best replies over the whole "
            f"vuelta, replays included, in exact arithmetic)",
            "certified:      " + (f"value = {proved_exactly} exactly"
                                  if proved_exactly is not None else
                                  f"{lower} <= value <= {upper} (exact arithmetic; width "
                                  f"{float(proof.width):.1e})"),
            f"replay:         {solution.replay_probability:.6f} (the chance nobody bets)",
            f"seconds:        {solution.seconds:.3f}",
        ]))
    if out is not None:
        write_json_atomic(out, {**result, "strategies": strategies(solution)})
        if not as_json:
            click.echo(f"strategy:       {out}")


def strategies(solution: Any) -> list[dict[str, Any]]:
    """Both seats' exact strategies (probabilities are multiples of 2^-53, so the floats
    written are exact): standing chances by throw, what is known of the other, and hand;
    betting by stand throws, betting node and hand."""
    model = solution.model
    names = ["-".join(map(str, h)) for h in model.hands]
    out = []
    for behaviour in solution.strategies:
        stand = [{"throw": t, "other_stood": pub, "stand": {
            name: s / (1 << 53) for name, s in zip(names, probs)}}
            for (t, pub), probs in sorted(behaviour.stand.items(),
                                          key=lambda kv: (kv[0][0], kv[0][1] or 0))]
        bets = []
        for stands, nodes in sorted(behaviour.bets.items()):
            tree = model.tree(stands)
            for node, probs in sorted(nodes.items()):
                bets.append({"stands": list(stands), "node": node,
                             "actions": list(tree.labels[node]),
                             "play": {name: [int(v) / (1 << 53) for v in probs[:, h]]
                                      for h, name in enumerate(names)}})
        out.append({"seat": behaviour.seat, "stand": stand, "betting": bets})
    return out
