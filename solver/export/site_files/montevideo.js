// The Montevideo page: the heads-up end's win-probability map (the ante down, the captain's
// chips across), coloured as on the printed chart; a click on a state shows its numbers and
// its push-or-fold play, hand by hand.

const mvView = { state: null };

function mvColour(m, v) { return m.colours[Math.round(v * (m.colours.length - 1))]; }

function mvInk(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return (r + g + b) / 3 > 0.45 * 255 ? "#000" : "#fff";
}

function mvMap(m) {
  const table = el("table", { class: "map", id: "montevideo-map" });
  const at = new Map(m.states.map((s, i) => [s.ante + "," + s.captain, i]));
  for (const ante of m.antes) {
    const row = el("tr", {}, el("th", { text: "ante " + ante }));
    for (let chips = 1; chips < m.total; chips++) {
      const i = at.get(ante + "," + chips);
      const s = m.states[i];
      const colour = mvColour(m, s.value);
      const td = el("td", { "data-state": s.captain + "," + s.opponent + "," + s.ante,
                            class: mvView.state === i ? "selected" : null,
                            title: "captain " + s.captain + " chips, other " + s.opponent +
                                   ", ante " + s.ante,
                            style: "background:" + colour + ";color:" + mvInk(colour),
                            text: s.value.toFixed(3) });
      td.tabIndex = 0;
      td.addEventListener("click", () => { mvView.state = i; renderMontevideo(); });
      td.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") td.click();
      });
      row.append(td);
    }
    table.append(row);
  }
  const foot = el("tr", {}, el("th", { text: "" }));
  for (let chips = 1; chips < m.total; chips++) foot.append(el("th", { text: String(chips) }));
  table.append(foot);
  return el("div", {}, el("div", { class: "note", text: "rows: the round's ante; columns: " +
    "the captain's chips (the other player holds the rest of " + m.total + ")" }), table);
}

function mvShare(p) { return p === null ? "never met" : percent(p); }

function mvAdvice(m) {
  const box = el("div", { class: "advice", id: "advice" });
  if (mvView.state === null) {
    box.append(el("p", { text: "Click a state for its numbers and its push-or-fold play." }));
    return box;
  }
  const s = m.states[mvView.state];
  box.append(
    el("h2", { id: "advice-title", text: "Captain " + s.captain + " chips, other player " +
               s.opponent + ", ante " + s.ante }),
    el("div", { id: "advice-value", text: "P(the captain ends with every chip) = " +
                s.value.toFixed(12) }),
    el("div", { text: "proved: " + s.lower + " \u2264 value \u2264 " + s.upper }),
    el("div", { text: "his share of the chips: " + s.chip_share.toFixed(4) + " (the chance " +
                "minus the share: " + chips(s.value - s.chip_share) + ")" }));
  if (s.push_fold === null) {
    box.append(el("p", { id: "no-betting", text: "A player is all in by the ante: nobody " +
                         "bets, the hands are shown." }));
    return box;
  }
  const table = el("table", { id: "push-fold" }, el("tr", {},
    el("th", { text: "final hand" }), el("th", { text: "captain leading: most often" }),
    el("th", { text: "all in at once" }), el("th", { text: "other player calls it" })));
  m.hands.forEach((hand, h) => {
    table.append(el("tr", {}, el("td", { text: hand }),
      el("td", { text: s.push_fold.opening[h] === null ? "never met" :
                 s.push_fold.opening[h] + (s.push_fold.opening[h] === s.push_fold.all_in_bet
                                           ? " (all in)" : "") }),
      el("td", { class: "num", text: mvShare(s.push_fold.all_in[h]) }),
      el("td", { class: "num", text: mvShare(s.push_fold.call[h]) })));
  });
  box.append(el("h2", { text: "Push or fold, by the hand after the last throw" }),
    el("p", { class: "note", text: "The stage LP's equilibrium (a plain vertex: another " +
      "equilibrium may differ), averaged over the throw counts; the captain leads the " +
      "betting when he threw no more times than the other player." }), table);
  return box;
}

function renderMontevideo() {
  const content = document.getElementById("content");
  const m = DATA.montevideo;
  if (!m) {
    content.replaceChildren(el("p", { text: "No solved heads-up end was found when this " +
      "site was built: `bidou montevideo --fresh --out DIR` solves one." }));
    return;
  }
  content.replaceChildren(
    el("div", { class: "numbers", id: "summary" },
       el("div", { text: "Rules: " + m.rules }),
       el("div", { text: "Every state's value proved in exact arithmetic to within " +
                         m.max_width.toExponential(1) + " (heads-up.json has the intervals)" })),
    el("div", { class: "layout" }, mvMap(m), mvAdvice(m)),
    el("p", { class: "note", text: "A cell is the captain's chance of ending with every " +
      "chip. Numbers as published in heads-up.json." }));
}

markNav("nav-montevideo");
document.getElementById("main").append(
  el("h1", { text: "Montevideo: the last two players, who wins from each state" }),
  el("div", { id: "content" }));
renderMontevideo();
