// The round page: each chip state's chance to win the round, coloured as on the printed
// chart (cividis); a click on a state shows its numbers and its stakes.

const roundView = { set: 0, state: null };

function colourOf(round, v) { return round.colours[Math.round(v * (round.colours.length - 1))]; }

function ink(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return (r + g + b) / 3 > 0.45 * 255 ? "#000" : "#fff";
}

// The cells of the map: a chip state fills (centre, captain's pile); an open throw fills
// both piles' cells, each with the chance of the player holding that pile.
function cells(round) {
  const out = new Map();
  round.states.forEach((s, i) => {
    out.set(s.centre + "," + s.captain, { v: s.value, i: i });
    if (s.open_throw) out.set(s.centre + "," + s.opponent, { v: 1 - s.value, i: i });
  });
  return out;
}

function mapTable(round) {
  const table = el("table", { class: "map", id: "round-map" });
  const filled = cells(round);
  for (let centre = round.chips; centre >= 0; centre--) {
    const row = el("tr", {}, el("th", { text: String(centre) }));
    for (let pile = 0; pile < round.chips; pile++) {
      const cell = filled.get(centre + "," + pile);
      if (!cell) { row.append(el("td", { class: "empty" })); continue; }
      const s = round.states[cell.i];
      const colour = colourOf(round, cell.v);
      const hatch = s.open_throw
        ? "repeating-linear-gradient(135deg, rgba(255,255,255,0.35) 0 2px, transparent 2px 8px), "
        : "";
      const td = el("td", { "data-state": s.centre + "," + s.captain + "," + s.opponent,
                            "data-index": cell.i,
                            class: roundView.state === cell.i ? "selected" : null,
                            title: "centre " + s.centre + ", this pile " + pile,
                            style: "background:" + hatch + "linear-gradient(" + colour + "," +
                                   colour + ");color:" + ink(colour),
                            text: cell.v.toFixed(3) });
      td.tabIndex = 0;                      // reachable from the keyboard too
      td.addEventListener("click", () => { roundView.state = cell.i; renderRound(); });
      td.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") td.click();
      });
      row.append(td);
    }
    table.append(row);
  }
  const foot = el("tr", {}, el("th", { text: "" }));
  for (let pile = 0; pile < round.chips; pile++) foot.append(el("th", { text: String(pile) }));
  table.append(foot);
  return el("div", {}, el("div", { class: "note", text: "rows: chips in the centre; " +
    "columns: chips in the captain's pile (the opponent holds the rest)" }), table);
}

function advice(round) {
  const box = el("div", { class: "advice", id: "advice" });
  if (roundView.state === null) {
    box.append(el("p", { text: "Click a state for its numbers and where the next hand " +
                               "can lead." }));
    return box;
  }
  const s = round.states[roundView.state];
  const who = s.open_throw ? "the first thrower (open throw: he holds " + s.captain +
                             " chips)" : "the captain";
  box.append(
    el("h2", { id: "advice-title", text: "State " + s.centre + "," + s.captain + "," +
               s.opponent + " (centre, captain, opponent)" }),
    el("div", { id: "advice-value", text: "P(" + who + " wins the round) = " +
                s.value.toFixed(12) }),
    el("div", { text: "proved: " + s.lower + " \u2264 value \u2264 " + s.upper }),
    el("div", { text: "exploitability of the solved strategies (win probability): captain " +
                s.captain_exploitability + ", opponent " + s.opponent_exploitability }),
    el("div", { text: "P(the round ends) = " + s.p_end }));
  if (s.open_throw) {
    box.append(el("p", { class: "note", text: "An open throw: the player with " + s.captain +
      " chips throws first, in the open, and the other tries to beat him; the loser of " +
      "the throw takes a chip." }));
    return box;
  }
  const table = el("table", { id: "stakes" }, el("tr", {}, el("th", { text: "the hand ends by" }),
    el("th", { text: "chips after (centre, captain, opponent)" }), el("th", { text: "then" }),
    el("th", { text: "P(captain wins the round)" })));
  for (const row of s.stakes) {
    table.append(el("tr", {}, el("td", { text: row.what }),
      el("td", { text: row.centre + ", " + row.captain + ", " + row.opponent }),
      el("td", { text: row.next }), el("td", { class: "num", text: row.value.toFixed(4) })));
  }
  box.append(el("h2", { text: "What is at stake in the next hand" }), swing(s), table,
    el("p", { class: "note" }, "The stage's own strategy (its betting and throwing charts): ",
       el("code", { text: "bidou round --state " + s.centre + "," + s.captain + "," +
                          s.opponent + " --charts --out DIR" })));
  return box;
}

// The stakes in one sentence: how far a one-chip showdown moves the captain's chance, and
// what a fold gives up against ending the hand on two passes.
function swing(s) {
  const find = (what) => s.stakes.find((row) => row.what === what);
  const won = find("showdown at level 1: the captain wins");
  const lost = find("showdown at level 1: the captain loses");
  const passes = find("both pass");
  const folds = find("the captain folds");
  if (!won || !lost || !passes || !folds) return null;
  const points = (x) => (100 * x).toFixed(1);
  return el("p", { id: "swing", text: "A one-chip showdown moves the captain's chance to " +
    "win the round from " + lost.value.toFixed(3) + " (lost) to " + won.value.toFixed(3) +
    " (won): " + points(won.value - lost.value) + " points. Folding costs him " +
    points(passes.value - folds.value) + " points against two passes." });
}

function renderRound() {
  const content = document.getElementById("content");
  if (!DATA.rounds.length) {
    content.replaceChildren(el("p", { text: "No solved round was found when this site was " +
      "built: `bidou round --charts --out DIR` solves one." }));
    return;
  }
  const round = DATA.rounds[roundView.set];
  content.replaceChildren(
    el("div", { class: "numbers", id: "summary" },
       el("div", { text: "Rules: " + round.rules }),
       el("div", { text: "Start (all " + round.chips + " chips in the centre): the first " +
                         "captain wins with probability " + round.start_value.toFixed(12) }),
       el("div", { text: "proved in exact arithmetic: " + round.start_lower + " \u2264 P \u2264 " +
                         round.start_upper + "; every state to within " +
                         round.max_width.toExponential(1) })),
    el("div", { class: "layout" }, mapTable(round), advice(round)),
    el("p", { class: "note", text: "A cell is the chance that the player holding that pile " +
      "wins the round, he being the next hand's captain; hatched cells are open throws " +
      "(a player holds all chips but one). Numbers as published in round.json." }));
}

markNav("nav-round");
const [roundLabel, roundBox] = select("round", "Round",
  DATA.rounds.map((r, i) => [i, r.name + ": " + r.rules]), () => {
    roundView.set = Number(roundBox.value);
    roundView.state = null;
    renderRound();
  });
document.getElementById("main").append(
  el("h1", { text: "Bidou: the round, who wins from each state" }),
  el("div", { class: "controls" }, roundLabel), el("div", { id: "content" }));
renderRound();
