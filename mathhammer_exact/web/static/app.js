// mathhammer_exact's page: the form <-> the URL's query string <-> a request to the JSON API,
// and the answer drawn as headline numbers, a chart of P(at least k models destroyed) and tables.
// The whole question lives in the query string, so a link reopens the same answer.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const SITUATION = {  // the API's situation fields and their JSON types (the rest are strings)
  half_range: "bool", charged: "bool", stationary: "bool", advanced: "bool", overwatch: "bool",
  cover: "bool", indirect: "bool", engaged: "bool", beyond_conversion_range: "bool",
  hit_modifier: "int", wound_modifier: "int", critical_hit: "int", critical_wound: "int", damage_bonus: "int",
  save_modifier: "int", worsen_ap: "int", wound_modifier_against: "int",
  reroll_hits: "text", reroll_wounds: "text", reroll_damage: "text", reroll_saves: "text",
  critical_mortals: "text", command_reroll: "text", rules: "text",
};
const LABELS = {  // as in the CLI's table
  attacks: "attacks", hits: "hits", wounds: "wounds", unsaved: "unsaved wounds",
  damage: "damage dealt (wounds lost)", models_destroyed: "models destroyed",
};
const SHOWN = 0.00005;  // rows with P(=k) below this are summed in one line, as in the CLI

const form = document.getElementById("question");
const byId = (id) => document.getElementById(id);

// ------------------------------------------------------------------ numbers
// A probability or mean from the API: a number, or an exact fraction "p/q" as a string.
function toNumber(value) {
  if (typeof value === "number") return value;
  const [top, bottom = "1"] = value.split("/");
  const n = BigInt(top), d = BigInt(bottom);
  if (n === 0n) return 0;
  const shift = bottom.length - top.replace("-", "").length + 17;  // keep 17 significant digits
  const q = shift >= 0 ? (n * 10n ** BigInt(shift)) / d : n / (d * 10n ** BigInt(-shift));
  return Number(q) * 10 ** -shift;
}

const fixed = (x, digits = 3) => toNumber(x).toFixed(digits);

function percent(p) {  // as the CLI's percent(): a tiny non-zero chance is not shown as 0
  const x = toNumber(p);
  return x > 0 && x < 5e-7 ? "< 0.0001%" : `${(x * 100).toFixed(4)}%`;
}

function cellPercent(p, exact) {  // a table cell: two decimals, and a short fraction when exact
  const text = `${(toNumber(p) * 100).toFixed(2)}%`;
  return exact && typeof p === "string" && p.length <= 24 ? `${text} (${p})` : text;
}

function readable(mean) {  // as the CLI's readable(): the fraction when it is short
  if (typeof mean === "string" && mean.length <= 12) {
    return mean.includes("/") ? `${mean} (=${fixed(mean)})` : mean;
  }
  return fixed(mean);
}

// P(=k) as numbers, P(>=k) summed from the top, and the mean, sd, median of a distribution.
function describe(dist) {
  const p = dist.pmf.map(toNumber);
  const tail = new Array(p.length + 1).fill(0);
  for (let k = p.length - 1; k >= 0; k--) tail[k] = tail[k + 1] + p[k];
  let median = 0;
  for (let k = 0, cdf = 0; k < p.length; k++) {
    cdf += p[k];
    if (cdf >= 0.5 - 1e-12) { median = k; break; }
  }
  const first = p.findIndex((x) => x > 0);
  return { p, tail, median, first: Math.max(first, 0) };
}

// ------------------------------------------------------------------ the form and the URL
function addWeaponRow(weapon = "", models = "1") {
  const rows = byId("weapon-rows");
  const n = rows.children.length + 1;
  const li = document.createElement("li");
  li.className = "weapon-row";
  li.innerHTML =
    `<label for="w${n}">Weapon ${n}</label><input id="w${n}" name="w" required>` +
    `<label for="m${n}">Models</label><input id="m${n}" name="m" type="number" min="1" inputmode="numeric">` +
    `<button type="button" class="remove">Remove weapon ${n}</button>`;
  li.querySelector("[name=w]").value = weapon;
  li.querySelector("[name=m]").value = models;
  li.querySelector(".remove").addEventListener("click", () => {
    if (rows.children.length > 1) { li.remove(); renumber(); }
  });
  rows.append(li);
}

function renumber() {
  [...byId("weapon-rows").children].forEach((li, i) => {
    const n = i + 1;
    li.querySelector("label[for^=w]").textContent = `Weapon ${n}`;
    li.querySelector(".remove").textContent = `Remove weapon ${n}`;
  });
}

function showMode(mode) {
  for (const [id, on] of [["weapons-panel", mode !== "unit"], ["unit-panel", mode === "unit"]]) {
    byId(id).hidden = !on;
    byId(id).disabled = !on;
  }
}

// The form as a query string: only what differs from the defaults.
function formToParams() {
  const params = new URLSearchParams();
  for (const el of form.elements) {
    if (!el.name || el.matches(":disabled")) continue;
    if (el.type === "checkbox") {
      if (el.checked) params.append(el.name, el.value === "on" ? "1" : el.value);
    } else if (el.type === "radio") {
      if (el.checked && el.value !== "weapons") params.append(el.name, el.value);
    } else if (el.name === "w" || el.name === "m") {
      params.append(el.name, el.value.trim());
    } else if (el.value.trim() !== (el.dataset.default ?? "")) {
      params.append(el.name, el.value.trim());
    }
  }
  return params;
}

function paramsToForm(params) {
  form.reset();
  const mode = params.get("mode") === "unit" ? "unit" : "weapons";
  form.querySelector(`[name=mode][value=${mode}]`).checked = true;
  showMode(mode);
  byId("weapon-rows").replaceChildren();
  const weapons = params.getAll("w"), models = params.getAll("m");
  if (weapons.length === 0) addWeaponRow();
  weapons.forEach((w, i) => addWeaponRow(w, models[i] || "1"));
  const named = new Set(params.getAll("with"));
  for (const el of form.elements) {
    if (!el.name || ["mode", "w", "m"].includes(el.name)) continue;
    if (el.name === "with") el.checked = named.has(el.value);
    else if (el.type === "checkbox") el.checked = params.get(el.name) === "1";
    else if (params.has(el.name)) el.value = params.get(el.name);
  }
  if (Object.keys(SITUATION).some((name) => params.has(name))) byId("situation").open = true;
  if (named.size) byId("named-rules-box").open = true;
}

// The API request a query string asks: [path, body].
function request(params) {
  const situation = {};
  for (const [name, type] of Object.entries(SITUATION)) {
    if (!params.has(name)) continue;
    const value = params.get(name);
    situation[name] = type === "bool" ? value === "1" : type === "int" ? Number(value) : value;
  }
  const body = { target: params.get("target") || "", situation, exact: params.get("exact") === "1" };
  for (const name of ["target_models", "size"]) if (params.has(name)) body[name] = Number(params.get(name));
  if (params.has("leader")) body.leader = params.get("leader");
  if (params.get("mode") === "unit") {
    body.attacker = params.get("attacker") || "";
    body.loadout = (params.get("loadout") || "").split(",").map((s) => s.trim()).filter(Boolean);
    body.with = params.getAll("with");
    body.melee = params.get("melee") === "1";
    body.pistols = params.get("pistols") === "1";
    return ["/api/unit", body];
  }
  delete body.size;
  const models = params.getAll("m");
  body.weapons = params.getAll("w").map((weapon, i) => ({ weapon, models: Number(models[i] || 1) }));
  return ["/api/attack", body];
}

function title(params) {  // as the CLI's title line
  const target = params.get("target") || "";
  if (params.get("mode") === "unit") return `${params.get("attacker") || ""}  ->  ${target}`;
  const models = params.getAll("m");
  const weapons = params.getAll("w").map((w, i) => `${models[i] || 1} x [${w}]`).join(", ");
  return `${weapons}  ->  ${target}`;
}

// ------------------------------------------------------------------ drawing the answer
function svg(name, attributes, text) {
  const el = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, value);
  if (text !== undefined) el.textContent = text;
  return el;
}

// P(at least k models destroyed) for k = 1..n as horizontal bars, like the CLI's '#' bars.
function drawChart(dist) {
  const { tail } = describe(dist);
  const chart = byId("chart");
  const n = dist.pmf.length - 1;
  const row = 26, left = 44, right = 84, width = Math.max(chart.parentElement.clientWidth, 240);
  const barWidth = width - left - right;  // drawn at the page's width, so the text stays at its CSS size
  chart.replaceChildren();
  chart.setAttribute("viewBox", `0 0 ${width} ${Math.max(n, 1) * row + 4}`);
  chart.setAttribute("data-bars", String(n));
  for (let k = 1; k <= n; k++) {
    const y = (k - 1) * row + 2, p = Math.min(Math.max(tail[k], 0), 1);
    chart.append(svg("text", { x: left - 8, y: y + row / 2, class: "axis", "text-anchor": "end",
                               "dominant-baseline": "central" }, `≥ ${k}`));
    chart.append(svg("rect", { x: left, y: y + 3, width: barWidth, height: row - 6, class: "track" }));
    const bar = svg("rect", { x: left, y: y + 3, width: (barWidth * p).toFixed(2), height: row - 6, class: "bar",
                              "data-k": String(k), "data-p": String(tail[k]) });
    bar.append(svg("title", {}, `P(at least ${k} destroyed) = ${percent(tail[k])}`));
    chart.append(bar);
    chart.append(svg("text", { x: width - 4, y: y + row / 2, class: "value", "text-anchor": "end",
                               "dominant-baseline": "central" }, percent(tail[k])));
  }
  if (n === 0) chart.append(svg("text", { x: 4, y: 18, class: "axis" }, "no model can be destroyed"));
}

function cell(tag, text, className) {
  const el = document.createElement(tag);
  el.textContent = text;
  if (className) el.className = className;
  return el;
}

function tableRow(cells, tag = "td") {
  const tr = document.createElement("tr");
  cells.forEach((text, i) => tr.append(cell(i === 0 && tag === "td" ? "th" : tag, text, i ? "num" : "")));
  return tr;
}

function drawTables(answer, exact) {
  const keys = Object.keys(LABELS).filter((key) => answer[key]);
  const summary = byId("summary");
  summary.replaceChildren();
  const head = document.createElement("thead");
  head.append(tableRow(["", "mean", "sd", "median"], "th"));
  const body = document.createElement("tbody");
  for (const key of keys) {
    body.append(tableRow([LABELS[key], readable(answer[key].mean), answer[key].sd.toFixed(3),
                          String(describe(answer[key]).median)]));
  }
  summary.append(head, body);

  const tables = byId("tables");
  tables.replaceChildren();
  for (const key of keys) {
    const details = document.createElement("details");
    details.open = key === "models_destroyed";
    details.append(cell("summary", LABELS[key]));
    const table = document.createElement("table");
    const thead = document.createElement("thead");
    thead.append(tableRow(["k", "P(=k)", "P(>=k)"], "th"));
    const tbody = document.createElement("tbody");
    const { p, tail, first } = describe(answer[key]);
    let hidden = 0, hiddenTotal = 0;
    answer[key].pmf.forEach((raw, k) => {
      if (k < first) return;
      if (p[k] < SHOWN) { hidden += 1; hiddenTotal += p[k]; return; }
      tbody.append(tableRow([String(k), cellPercent(raw, exact), cellPercent(tail[k], false)]));
    });
    table.append(thead, tbody);
    details.append(table);
    if (hidden) {
      details.append(cell("p", `(${hidden} other values, each below ${(SHOWN * 100).toFixed(3)}%, ` +
                                `total ${(hiddenTotal * 100).toFixed(4)}%)`, "hint"));
    }
    tables.append(details);
  }
}

let shown = null;  // the answer on the page, redrawn when the page's width changes

function show(answer, params) {
  shown = answer;
  const exact = params.get("exact") === "1";
  byId("answer-title").textContent = title(params);
  const headline = [["mean-damage", answer.damage.mean, fixed], ["mean-kills", answer.models_destroyed.mean, fixed],
                    ["p-destroyed", answer.p_destroyed, percent]];
  for (const [id, value, format] of headline) {
    byId(id).textContent = format(value);
    byId(id).dataset.value = String(toNumber(value));
  }
  const notes = byId("notes");
  notes.replaceChildren();
  const chances = [["p_below_half", "P(target Below Half-strength, not destroyed)"],
                   ["p_battle_shocked", "P(target then fails its Battle-shock test)"]];
  for (const [key, label] of chances) {
    if (answer[key] !== undefined && answer[key] !== null) notes.append(cell("li", `${label} = ${percent(answer[key])}`));
  }
  if (answer.groups && answer.groups.length > 1) {
    for (const group of answer.groups) {
      notes.append(cell("li", `${group.name} (${group.models}): ${fixed(group.models_destroyed.mean)} destroyed ` +
                              `on average, P(all destroyed) = ${percent(group.p_destroyed)}`));
    }
  }
  if (answer.hazardous_models_lost) {
    notes.append(cell("li", `Hazardous: ${fixed(answer.hazardous_models_lost.mean)} attacking models lost ` +
                            "on average"));
  }
  if (answer.modifiers && answer.modifiers.length) notes.append(cell("li", `with: ${answer.modifiers.join(", ")}`));
  for (const line of answer.situation || []) notes.append(cell("li", line));
  drawChart(answer.models_destroyed);
  drawTables(answer, exact);
  byId("share").href = `${location.pathname}?${params}`;
  byId("answer").hidden = false;
}

async function ask(params) {
  const [path, body] = request(params);
  const button = byId("ask");
  byId("error").hidden = true;
  byId("answer").setAttribute("aria-busy", "true");
  button.disabled = true;
  try {
    const response = await fetch(path, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error || response.statusText);
    show(answer, params);
  } catch (error) {
    byId("answer").hidden = true;
    byId("error").textContent = `error: ${error.message}`;
    byId("error").hidden = false;
  } finally {
    button.disabled = false;
    byId("answer").removeAttribute("aria-busy");
  }
}

// ------------------------------------------------------------------ the rules data for the controls
async function loadCatalogue() {
  const response = await fetch("/api/catalogue");
  if (!response.ok) return;
  const catalogue = await response.json();
  const option = (value, label) => { const o = document.createElement("option"); o.value = value;
                                     if (label) o.label = label; return o; };
  byId("datasheet-names").replaceChildren(...catalogue.datasheets.map((s) => option(s.name, s.faction)));
  byId("target-names").replaceChildren(
    ...catalogue.targets.map((t) => option(t.name, t.description)),
    ...catalogue.datasheets.map((s) => option(s.name, s.faction)));
  const rules = byId("named-rules");
  const chosen = new URLSearchParams(location.search).getAll("with");
  for (const rule of catalogue.rules) {
    const label = document.createElement("label");
    label.className = "check";
    label.title = rule.summary;
    const box = document.createElement("input");
    Object.assign(box, { type: "checkbox", name: "with", value: rule.key, checked: chosen.includes(rule.key) });
    const text = document.createElement("span");
    text.append(`${rule.name} `, cell("span", `(${rule.kind}, ${rule.side})`, "hint"));
    label.append(box, text);
    rules.append(label);
  }
}

function openFromUrl() {
  const params = new URLSearchParams(location.search);
  paramsToForm(params);
  if (params.has("target")) ask(params);
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const params = formToParams();
  history.pushState(null, "", `?${params}`);
  ask(params);
});
form.addEventListener("change", (event) => {
  if (event.target.name === "mode") showMode(event.target.value);
});
byId("add-weapon").addEventListener("click", () => {
  addWeaponRow();
  byId("weapon-rows").lastElementChild.querySelector("input").focus();
});
window.addEventListener("popstate", openFromUrl);
window.addEventListener("resize", () => { if (shown && !byId("answer").hidden) drawChart(shown.models_destroyed); });
openFromUrl();  // the form and the answer need nothing but the URL; the named rules' boxes come with the catalogue
loadCatalogue();
