// The throwing page: the reroll chart's grid, one column per decision (the captain's
// throws, then the opponent's for each number of throws the captain made).

const THROW = DATA.styles.throw;
const rview = { set: DATA.selected };

function cellSegments(set, column, h) {
  const segments = [];
  for (const a of set.order) {
    const p = column.p[a][h];
    if (p <= 5e-4) continue;
    const action = set.actions[a];
    const name = action.dice ? "keep " + action.dice
                             : (action.style === "stop" ? "stop" : "throw all three");
    const short = action.dice || (action.style === "stop" ? "stop" : "all");
    const mixed = column.p.filter((row) => row[h] > 5e-4).length > 1;
    const value = column.values ? " (" + chips(column.values[a][h]) + " chips)" : "";
    segments.push({ p: p, style: THROW[action.style], title: name + " " + percent(p) + value,
                    label: mixed ? (set.keep ? short + " " : "") + percent(p)
                                 : (set.keep ? short : ""),
                    short: mixed ? (set.keep ? short : percent(p)) : "" });
  }
  return segments;
}

function columnTitle(c) {
  return c.player === "captain" ? "captain, throw " + c.throw
    : "opponent, captain threw " + c.captain_throws + ", throw " + c.throw;
}

function rerollTable(set) {
  const top = el("tr", {}, el("th", { text: "hand" }));
  const head = el("tr", {}, el("th", { text: "" }));
  let last = null;
  for (const c of set.columns) {
    const group = c.player === "captain" ? "captain" : "opponent, captain threw " + c.captain_throws;
    if (group !== last) {
      top.append(el("th", { colspan: set.throws - 1, text: group }));
      last = group;
    }
    head.append(el("th", { text: "after throw " + c.throw }));
  }
  const table = el("table", { class: "grid", id: "reroll-table" }, el("thead", {}, top, head));
  const body = el("tbody");
  set.hands.forEach((hand, h) => {
    const row = el("tr", { "data-hand": hand.split(" ")[0],
                           class: set.groups.includes(h) ? "group-start" : null },
                   el("td", { class: "hand", text: hand }));
    set.columns.forEach((c, i) => {
      const segments = cellSegments(set, c, h);
      row.append(el("td", { "data-column": i, title: columnTitle(c) + ": " +
                            segments.map((s) => s.title).join(", ") },
                        bar(segments, !c.reached[h], true)));
    });
    body.append(row);
  });
  table.append(body);
  return table;
}

function renderReroll() {
  const set = DATA.rule_sets[rview.set];
  setAddress({ rules: set.name });
  const content = document.getElementById("content");
  const entries = set.keep ? ["stop", "keep2", "keep1", "reroll"] : ["stop", "reroll"];
  if (set.throws < 2) {
    content.replaceChildren(summaryLine(set.summary),
                            el("p", { text: "One throw allowed: there is no throwing decision." }));
    return;
  }
  content.replaceChildren(
    summaryLine(set.summary),
    legend(entries.map((k) => THROW[k]), "thin bar in a grey frame: never reached with this hand under the " +
           "player's own strategy"),
    rerollTable(set),
    el("p", { class: "note", text: "Rows: your hand, strongest first. Columns: the throw you " +
      "have just made; the opponent reads the columns of the number of throws the captain " +
      "declared. Mixed cells: bar widths are the frequencies (hover a cell for every one, " +
      "with its value: the expected chips of the hand from there, against the equilibrium " +
      "opponent)." +
      (set.keep ? " Dice written in a cell are the dice to keep." : "") }));
}

markNav("nav-reroll");
const [rulesLabel, rulesBox] = select("rules", "Rules",
  DATA.rule_sets.map((r, i) => [i, r.name + ": " + r.summary.rules]), () => {
    rview.set = Number(rulesBox.value);
    renderReroll();
  });
rview.set = ruleSetNamed(address().get("rules"), rview.set);
rulesBox.value = String(rview.set);
document.getElementById("main").append(
  el("h1", { text: "Bidou: when to stop throwing, which dice to keep" }),
  el("div", { class: "controls" }, rulesLabel), el("div", { id: "content" }));
renderReroll();
