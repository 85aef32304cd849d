"use strict";
// Shared by every page: the embedded data, small DOM helpers, number formats, the bars.

const DATA = JSON.parse(document.getElementById("bidou-data").textContent);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "style") node.style.cssText = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) {
      node.append(child);
    }
  }
  return node;
}

// A probability in percent, one decimal ("58.3%"); "0%" and "100%" only when exact.
function percent(p) {
  if (p <= 0) return "0%";
  if (p >= 1) return "100%";
  const text = (100 * p).toFixed(1);
  if (text === "0.0") return "<0.1%";
  if (text === "100.0") return ">99.9%";
  return text + "%";
}

// Chips with a true minus sign and four decimals ("−0.0369").
function chips(x) {
  return (x >= 0 ? "+" : "\u2212") + Math.abs(x).toFixed(4);
}

// The background of an action's bar: its chart colour, hatched like the chart.
function fill(style) {
  const parts = [];
  if (style.hatch === "////") {
    parts.push("repeating-linear-gradient(135deg, rgba(0,0,0,0.45) 0 1px, transparent 1px 6px)");
  } else if (style.hatch) {
    parts.push("repeating-linear-gradient(45deg, rgba(0,0,0,0.45) 0 1px, transparent 1px 6px)");
  }
  parts.push("linear-gradient(" + style.color + ", " + style.color + ")");
  return "background:" + parts.join(", ");
}

// Proportional bar: one segment per action played, each labelled with what fits in it
// (its full label, else its percentage alone, else nothing: the title says all).
// Never reached ("faded" in the caller's words): as on the printed charts, a thin band of
// the true colours in a grey frame, so no colour is mistaken for another action's.
function bar(segments, faded, small) {
  const width = small ? 116 : 220;
  const fits = (text, p) => !faded && text && text.length * 6.4 + 6 <= p * width;
  const off = DATA.styles.off_path;
  const frame = faded ? "border-color:" + off.edge + ";padding:" +
                        (18 * (1 - off.band) / 2).toFixed(1) + "px 0;height:" +
                        (18 * off.band).toFixed(1) + "px;background:#fff" : "";
  const node = el("div", { class: small ? "bar small" : "bar", style: frame });
  for (const s of segments) {
    if (s.p <= 0) continue;
    const label = fits(s.label, s.p) ? s.label : (fits(s.short, s.p) ? s.short : "");
    node.append(el("div", { class: "seg", title: s.title,
                            style: "width:" + (100 * s.p) + "%;" + fill(s.style),
                            text: label }));
  }
  return node;
}

function legend(entries, fadedNote) {
  const node = el("div", { class: "legend" });
  for (const style of entries) {
    node.append(el("span", {}, el("span", { class: "swatch", style: fill(style) }),
                   style.label));
  }
  if (fadedNote) node.append(el("span", { class: "claim", text: fadedNote }));
  return node;
}

function select(id, label, options, onChange) {
  const box = el("select", { id: id });
  for (const [value, text] of options) box.append(el("option", { value: value, text: text }));
  box.addEventListener("change", onChange);
  return [el("label", { for: id }, label, box), box];
}

// The line every page gives a rule set: value, both exploitabilities, proof, status.
function summaryLine(s) {
  const value = s.exact ? s.exact + " = " + s.value.toFixed(12) : s.value.toFixed(12);
  const node = el("div", { class: "numbers", id: "summary" });
  node.append(el("div", { text: "Rules: " + s.rules }));
  node.append(el("div", { text: "Value to the captain: " + value + " chips per hand; " +
                                s.quality }));
  node.append(el("div", { text: "Exploitability (exact best response): captain " +
                                s.captain_exploitability + ", opponent " +
                                s.opponent_exploitability + " chips per hand" }));
  node.append(el("div", { class: "claim",
                          text: "Solver status: " + s.status + " (" + s.method + ")" +
                                (s.claimed ? ", as the strategy file records it" : "") }));
  return node;
}

// A page's choice lives in its address too ("index.html#rules=keep&c=2&o=3&bets=br"): a
// link or a reload shows the same thing, and the other pages' links keep the rules.
function address() {
  return new URLSearchParams(location.hash.slice(1));
}

function setAddress(fields) {
  const text = "#" + new URLSearchParams(fields).toString();
  if (location.hash !== text) history.replaceState(null, "", text);
  const rules = new URLSearchParams({ rules: fields.rules }).toString();
  for (const [id, page] of [["nav-betting", "index.html"], ["nav-reroll", "reroll.html"]]) {
    const link = document.getElementById(id);
    if (link && fields.rules !== undefined) link.setAttribute("href", page + "#" + rules);
  }
}

function ruleSetNamed(name, fallback) {
  const found = DATA.rule_sets.findIndex((r) => r.name === name);
  return found >= 0 ? found : fallback;
}

function markNav(id) {
  const link = document.getElementById(id);
  if (link) link.classList.add("here");
}
