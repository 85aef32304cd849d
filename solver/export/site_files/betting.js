// The betting page: pick the rules, both throw counts and the betting so far; every hand
// of the player to act with each action's frequency and, when known, its value.

const BET = DATA.styles.bet;
const view = { set: DATA.selected, tc: 1, to: 1, history: "" };

function ruleSet() { return DATA.rule_sets[view.set]; }
function publicState() { return ruleSet().states[view.tc + "," + view.to]; }
function node() {
  return publicState().nodes.find((n) => n.history === view.history) || publicState().nodes[0];
}

function historyText(n) {
  const facing = n.history ? n.facing : "opens the betting";
  return (n.history ? n.so_far : "nothing bet yet") + " \u2192 the " + n.actor + " " + facing +
    (n.off_path ? " (off the equilibrium path)" : "");
}

function readAddress() {
  const wanted = address();
  view.set = ruleSetNamed(wanted.get("rules"), view.set);
  if (wanted.has("c")) view.tc = Number(wanted.get("c"));
  if (wanted.has("o")) view.to = Number(wanted.get("o"));
  if (wanted.has("bets")) view.history = wanted.get("bets");
  document.getElementById("rules").value = String(view.set);
  refreshThrows();
}

function controls() {
  const box = el("div", { class: "controls" });
  const [rulesLabel, rules] = select("rules", "Rules",
    DATA.rule_sets.map((r, i) => [i, r.name + ": " + r.summary.rules]), () => {
      view.set = Number(rules.value);
      refreshThrows();
      render();
    });
  const throws = (id, label, key) => {
    const [wrap, box] = select(id, label, [], () => {
      view[key] = Number(box.value);
      refreshHistory();
      render();
    });
    return [wrap, box];
  };
  const [tcLabel, tc] = throws("captain-throws", "Captain's throws", "tc");
  const [toLabel, to] = throws("opponent-throws", "Opponent's throws", "to");
  const [hLabel, history] = select("history", "Betting so far", [], () => {
    view.history = history.value;
    render();
  });
  rules.value = String(view.set);
  box.append(rulesLabel, tcLabel, toLabel, hLabel);
  return box;
}

function fillSelect(id, options, wanted) {
  const box = document.getElementById(id);
  box.replaceChildren(...options.map(([v, t]) => el("option", { value: v, text: t })));
  const values = options.map(([v]) => String(v));
  box.value = values.includes(String(wanted)) ? String(wanted) : values[0];
  return box.value;
}

function refreshThrows() {
  const counts = [];
  for (let t = 1; t <= ruleSet().throws; t++) counts.push([t, String(t)]);
  view.tc = Number(fillSelect("captain-throws", counts, view.tc));
  view.to = Number(fillSelect("opponent-throws", counts, view.to));
  refreshHistory();
}

function refreshHistory() {
  const options = publicState().nodes.map((n) => [n.history, historyText(n)]);
  view.history = fillSelect("history", options, view.history);
}

function decisionTable(n) {
  const set = ruleSet();
  const head = el("tr", {}, el("th", { text: "hand" }), el("th", { text: "frequencies" }));
  for (const a of n.actions) head.append(el("th", { text: a }));
  if (n.values) for (const a of n.actions) head.append(el("th", { text: a + ": chips" }));
  const table = el("table", { class: "grid", id: "decision-table" }, el("thead", {}, head));
  const body = el("tbody");
  set.hands.forEach((hand, h) => {
    const reached = n.reached[h];
    const row = el("tr", { "data-hand": hand.split(" ")[0],
                           class: [set.groups.includes(h) ? "group-start" : "",
                                   reached ? "" : "unreached"].join(" ").trim() || null });
    const segments = n.actions.map((a, i) => ({ p: n.p[i][h], style: BET[a],
                                                label: percent(n.p[i][h]), short: "",
                                                title: a + " " + percent(n.p[i][h]) }));
    row.append(el("td", { class: "hand", text: hand }), el("td", {}, bar(segments, !reached)));
    n.actions.forEach((a, i) => row.append(el("td", { class: "num freq", "data-action": a,
                                                      text: percent(n.p[i][h]) })));
    if (n.values) {
      const best = Math.max(...n.actions.map((a, i) => n.values[i][h]));
      n.actions.forEach((a, i) => row.append(el("td", {
        class: "num val" + (n.values[i][h] >= best - 5e-7 ? " best" : ""), "data-action": a,
        text: chips(n.values[i][h]) })));
    }
    body.append(row);
  });
  table.append(body);
  return table;
}

function render() {
  const set = ruleSet();
  const n = node();
  const main = document.getElementById("content");
  const state = publicState();
  setAddress({ rules: set.name, c: view.tc, o: view.to, bets: view.history });
  const values = n.values ? (n.off_path
    ? "Values: expected chips of each action for the " + n.actor + ", his later play as in " +
      "the strategy. The other player never reaches this decision at equilibrium: his hand " +
      "is read as the limit of small uniform trembles (off path)."
    : "Values: expected chips of each action for the " + n.actor + " against the " +
      "equilibrium opponent (given what he knows: his hand, the throw counts, the betting), " +
      "his later play as in the strategy; the best in bold. A mixed hand's actions are " +
      "worth the same: that is why it may mix.")
    : (set.values_known ? "" : "Action values are not in this build of the site.");
  main.replaceChildren(...[
    summaryLine(set.summary),
    el("div", { class: "decision", id: "decision",
                text: "Captain " + view.tc + " throw" + (view.tc > 1 ? "s" : "") +
                      ", opponent " + view.to + " (the " + state.first + " bets first): " +
                      historyText(n) + "." }),
    n.off_path ? el("p", { class: "warning", id: "off-path", text: "Off the equilibrium " +
      "path: the other player's strategy never leads here, whatever his hand. The " +
      "frequencies are what the solver filled in (an equilibrium asks only that they leave " +
      "him no profit in coming here); the values read his hand as the limit of small " +
      "uniform trembles, so they may favour another action." }) : null,
    legend(["pass", "bet", "call", "fold"].map((k) => BET[k]),
           "thin bars in a grey frame: hands the " + n.actor + "'s own strategy never brings here"),
    decisionTable(n),
    el("p", { class: "note", text: "Rows: the hand of the player to act, strongest first " +
      "(the charts' order). Each bet or raise is one chip more; folding costs one chip, a " +
      "called showdown 2 chips per level to the lower hand. " + values })
  ].filter((part) => part !== null));
}

markNav("nav-betting");
document.getElementById("main").append(
  el("h1", { text: "Bidou: how to bet" }), controls(), el("div", { id: "content" }));
readAddress();
render();
window.addEventListener("hashchange", () => { readAddress(); render(); });
