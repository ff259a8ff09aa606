// mathhammer_exact's page: every question of the command line, each with its own URL. The form <-> the URL's
// query string <-> a request to the JSON API (/openapi.json), and the answer drawn first: its headline numbers,
// what fired, the header lines of what was asked as understood, charts and tables.
// The whole question lives in the query string, so a link reopens the same answer; an army list lives in the
// page's memory (and the tab's sessionStorage) and is sent with each question that names one of its units.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
let SITUATION = {};  // the API's situation fields -> their JSON types ("bool", "int", "text"): buildSituation
const LABELS = {  // as in the CLI's table
  attacks: "attacks", hits: "hits", wounds: "wounds", unsaved: "unsaved wounds",
  damage: "damage dealt (wounds lost)", models_destroyed: "models destroyed", roll: "the roll",
  models_lost: "models lost", advance: "inches", fighters: "models left to fight",
};
const SHOWN = 0.0001;  // a row of a chart or table below 0.01% is folded into one line
const MAX_ARMY = 60000;  // base64 characters of an army list a request may carry (the server takes 64 KiB)

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

const isFraction = (value) => typeof value === "string" && value.includes("/");

function percent(p) {  // two decimals; a tiny non-zero chance is not shown as 0
  const x = toNumber(p);
  return x > 0 && x < 0.00005 ? "< 0.01%" : `${(x * 100).toFixed(2)}%`;
}

let exactShown = false;  // the answer on the page was asked with exact fractions

function mean(value) {  // two decimals, and the fraction itself when exact and short
  const text = toNumber(value).toFixed(2);
  return exactShown && typeof value === "string" && value.length <= 15 && value !== text ? `${value} (${text})` : text;
}

function said(shown) {  // '= 12.50%', or '< 0.01%' as it is (not '= < 0.01%')
  return shown.startsWith("<") ? shown : `= ${shown}`;
}

function chance(value) {  // a percentage, and the fraction when exact and short
  return exactShown && isFraction(value) && value.length <= 24 ? `${percent(value)} (${value})` : percent(value);
}

// P(=k), P(>=k) and the median of a distribution, as numbers.
function describe(dist) {
  const p = dist.pmf.map(toNumber);
  const tail = new Array(p.length + 1).fill(0);
  for (let k = p.length - 1; k >= 0; k--) tail[k] = tail[k + 1] + p[k];
  let median = 0;
  for (let k = 0, cdf = 0; k < p.length; k++) {
    cdf += p[k];
    if (cdf >= 0.5 - 1e-12) { median = k; break; }
  }
  return { p, tail, median };
}

// ------------------------------------------------------------------ the situation's controls
// One control for each field of the API's situation, in the declared order, from its JSON schema (GET
// /api/situation): a checkbox for a flag, a list of the choices (said in the answer header's words), a number
// between the field's bounds, or free text; each with the field's default and its help as its label.
const LONG_HELP = 80;  // characters: a longer help is cut to its first clause for the label (and kept as its title)

function buildSituation(schema) {
  const box = byId("situation-fields"), values = byId("situation-values");
  for (const old of box.querySelectorAll(":scope > label.check")) old.remove();
  values.replaceChildren();
  SITUATION = {};
  for (const [name, field] of Object.entries(schema.properties)) {
    const help = field.description || field.title;
    const words = help.length > LONG_HELP ? help.split(/ \(|: |; /)[0] : help.replace(/\.$/, "");
    const id = `situation-${name}`;
    if (field.type === "boolean") {
      SITUATION[name] = "bool";
      const input = Object.assign(document.createElement("input"), { type: "checkbox", name, id,
                                                                     defaultChecked: field.default === true });
      const label = cell("label", "", "check");
      label.append(input, ` ${words}`);
      if (words !== help) label.title = help;
      box.insertBefore(label, values);
      continue;
    }
    const fallback = field.default === null || field.default === undefined ? "" : String(field.default);
    const choices = field.enum || (field.anyOf || []).find((kind) => kind.enum)?.enum;
    let control;
    if (choices) {
      control = document.createElement("select");
      // unset: the field's default where its help names one (the edition: the player's), else none is used
      if (fallback === "") control.append(option("", /\(default\b/.test(help) ? "default" : "none"));
      for (const choice of choices) control.append(option(choice, (field["x-words"] || {})[choice] || choice));
      for (const o of control.options) o.defaultSelected = o.value === fallback;
    } else {
      const integer = field.type === "integer";
      control = Object.assign(document.createElement("input"), integer
        ? { type: "number", inputMode: "numeric" } : { placeholder: field["x-metavar"] || "" });
      if (field.minimum !== undefined) control.min = String(field.minimum);
      if (field.maximum !== undefined) control.max = String(field.maximum);
      control.defaultValue = fallback;
    }
    SITUATION[name] = field.type === "integer" ? "int" : "text";
    Object.assign(control, { id, name });
    control.value = fallback;
    control.dataset.default = fallback;
    if (words !== help) control.title = help;
    const div = document.createElement("div");
    div.append(Object.assign(cell("label", words), { htmlFor: id }), control);
    values.append(div);
  }
}

async function loadSituation() {
  try {
    const response = await fetch("/api/situation");
    if (!response.ok) throw new Error(response.statusText);
    buildSituation(await response.json());
  } catch (error) {
    byId("error").textContent = `error: the situation's controls did not load (${error.message}); reload the page`;
    byId("error").hidden = false;
  }
}

// ------------------------------------------------------------------ weapon lists (rows of profile, models)
// A list's rows go in the URL as parallel values: PREFIX (the text), PREFIXm (models; "m" for the weapons
// list, as older links have it) and, where a row may be a unit by name, PREFIXk ("unit" or "weapon").
const names = (list) => {
  const prefix = list.dataset.prefix;
  return { text: prefix, models: prefix === "w" ? "m" : `${prefix}m`, kind: `${prefix}k` };
};

function addRow(list, text = "", models = "", kind = "weapon") {
  const { noun } = list.dataset;
  const key = names(list);
  const n = list.children.length + 1;
  const id = `${list.id}-${n}`;
  const li = document.createElement("li");
  li.className = "weapon-row";
  const units = list.dataset.units === "1";
  li.innerHTML =
    (units ? `<label for="${id}k" class="row-kind kind-label">${noun} ${n} is</label><select id="${id}k" ` +
             `class="row-kind kind" name="${key.kind}"><option value="weapon">a weapon profile</option>` +
             `<option value="unit">a unit by name</option></select>` : "") +
    `<label for="${id}" class="text-label">${noun} ${n}</label><input id="${id}" class="text" name="${key.text}">` +
    `<label for="${id}m" class="models-label">Models</label>` +
    `<input id="${id}m" class="models" name="${key.models}" type="number" min="1" inputmode="numeric">` +
    `<button type="button" class="remove">Remove ${noun.toLowerCase()} ${n}</button>`;
  li.querySelector(`[name="${key.text}"]`).value = text;
  if (list.dataset.suggest) {  // a unit by name: suggested as it is typed
    const input = li.querySelector(`[name="${key.text}"]`);
    input.dataset.suggest = list.dataset.suggest;
    input.setAttribute("list", `${list.id}-names`);
    input.addEventListener("focus", () => suggest(input, true));
  }
  li.querySelector(`[name="${key.models}"]`).value = models;
  if (units) li.querySelector("select").value = kind === "unit" ? "unit" : "weapon";
  li.querySelector(".remove").addEventListener("click", () => {
    if (list.children.length > 1 || list.dataset.empty === "1") { li.remove(); renumber(list); }
  });
  list.append(li);
  return li;
}

function renumber(list) {
  const { noun } = list.dataset;
  [...list.children].forEach((li, i) => {
    li.querySelector(".text-label").textContent = `${noun} ${i + 1}`;
    if (li.querySelector(".kind-label")) li.querySelector(".kind-label").textContent = `${noun} ${i + 1} is`;
    li.querySelector(".remove").textContent = `Remove ${noun.toLowerCase()} ${i + 1}`;
  });
}

function fillList(list, params) {
  const key = names(list);
  list.replaceChildren();
  const texts = params.getAll(key.text), models = params.getAll(key.models), kinds = params.getAll(key.kind);
  texts.forEach((text, i) => addRow(list, text, models[i] ?? "", kinds[i]));
  if (!texts.length && list.dataset.empty !== "1") addRow(list, "", list.id === "weapons" ? "1" : "");
}

// The rows of a list for the API: {weapon, models} (models left out where empty) or {unit}.
function rows(params, list, defaultModels) {
  const key = names(list);
  const models = params.getAll(key.models), kinds = params.getAll(key.kind);
  return params.getAll(key.text).map((text, i) => {
    if (kinds[i] === "unit") return { unit: text };
    const row = { weapon: text };
    if (models[i]) row.models = Number(models[i]);
    else if (defaultModels !== undefined) row.models = defaultModels;
    return row;
  });
}

// ------------------------------------------------------------------ the kinds of question
const panels = (...names) => new Set(names);
const ATTACK_PANELS = ["weapons", "target", "target-extra", "situation"];
const UNIT_PANELS = ["unit", "rules", "target", "target-extra", "target-loadout", "situation"];

function situation(params) {
  const found = {};
  for (const [name, type] of Object.entries(SITUATION)) {
    if (!params.get(name)) continue;
    const value = params.get(name);
    found[name] = type === "bool" ? value === "1" : type === "int" ? Number(value) : value;
  }
  return found;
}

const list = (text) => (text || "").split(",").map((s) => s.trim()).filter(Boolean);
const number = (params, name) => (params.get(name) ? Number(params.get(name)) : undefined);
// one Leader, or two written "Captain + Lieutenant" (a profile's "Sv3+ W4" has no space before its "+")
const leaders = (text) => {
  const names = text.split(" + ").map((s) => s.trim()).filter(Boolean);
  return names.length > 1 ? names : text.trim();
};

function targetFields(params, body) {
  body.target = params.get("target") || "";
  if (params.has("target_models")) body.target_models = Number(params.get("target_models"));
  if (params.get("leader")) body.leader = leaders(params.get("leader"));
  return body;
}

function attackBody(params) {
  return targetFields(params, { weapons: rows(params, byId("weapons"), 1), situation: situation(params) });
}

function unitBody(params) {
  const body = targetFields(params, { attacker: params.get("attacker") || "", situation: situation(params) });
  if (params.get("size")) body.size = Number(params.get("size"));
  for (const name of ["loadout", "profiles", "target_loadout"]) {
    if (params.get(name)) body[name] = list(params.get(name));
  }
  if (params.getAll("with").length) body.with = params.getAll("with");
  if (params.get("led_by")) body.led_by = leaders(params.get("led_by"));
  for (const flag of ["melee", "pistols"]) if (params.get(flag) === "1") body[flag] = true;
  return body;
}

const unitMode = (params) => params.get("mode") === "unit";

// Each kind: the panels of its form, its request from a query string ([path, body]) and how its answer is drawn.
const KINDS = {
  attack: {
    title: "Weapon profiles at a target", help: "Weapon profiles, written out, fired in turn at one target.",
    panels: () => panels(...ATTACK_PANELS),
    request: (params) => ["/api/attack", attackBody(params)],
    draw: drawAttack,
  },
  unit: {
    title: "A unit attacks", help: "A unit by name attacks with its whole loadout, its abilities read from its datasheet.",
    panels: () => panels(...UNIT_PANELS),
    request: (params) => ["/api/unit", unitBody(params)],
    draw: drawAttack,
  },
  compare: {
    title: "Compare", help: "Scenarios side by side, the first the baseline: set up a question, add it, change it, add it again.",
    panels: (mode) => panels("mode", "compare", ...(mode === "unit" ? UNIT_PANELS : ATTACK_PANELS)),
    request: (params) => {
      const scenarios = params.getAll("s").map((text) => {
        const scenario = new URLSearchParams(text);
        const title = scenarioTitle(scenario);  // its title, where it has no label (within the API's 300 characters)
        const label = scenario.get("label") || (title.length > 200 ? `${title.slice(0, 199)}…` : title);
        const question = unitMode(scenario) ? { unit: unitBody(scenario) } : { attack: attackBody(scenario) };
        return { label, ...question };
      });
      const body = { scenarios };
      if (params.get("at_least")) body.at_least = Number(params.get("at_least"));
      return ["/api/compare", body];
    },
    draw: drawPanel,
  },
  need: {
    title: "How many", help: "The fewest models (or the smallest unit) that reach a chance of destroying the target.",
    panels: (mode) => panels("mode", "need", ...(mode === "unit" ? UNIT_PANELS : ATTACK_PANELS)),
    request: (params) => {
      const body = unitMode(params) ? unitBody(params) : attackBody(params);
      if (!unitMode(params)) {  // the sought weapon's models are what is looked for
        body.weapons = rows(params, byId("weapons"));
        delete body.weapons[(number(params, "weapon") || 1) - 1]?.models;
      }
      body.need = params.get("need") || "";
      if (params.get("at_least")) body.at_least = Number(params.get("at_least"));
      if (!unitMode(params) && params.get("weapon")) body.weapon = Number(params.get("weapon"));
      return [unitMode(params) ? "/api/unit/need" : "/api/attack/need", body];
    },
    draw: drawAttack,
  },
  plan: {
    title: "Plan", help: "Every firing order of the weapons (and split between two targets), best first.",
    panels: () => panels("weapons", "target", "target2", "plan", "situation"),
    request: (params) => {
      const targets = [params.get("target") || "", params.get("target2")].filter((t) => t !== null && t !== "");
      const body = { weapons: rows(params, byId("weapons"), 1), targets: targets.length ? targets : [""],
                     goal: params.get("goal") || "destroy", situation: situation(params) };
      if (params.get("top")) body.top = Number(params.get("top"));
      return ["/api/plan", body];
    },
    draw: drawPlan,
  },
  turn: {
    title: "A whole turn", help: "Shoot, charge and fight one target, its state carried through.",
    panels: () => panels("target", "target-extra", "turn", "rules", "situation"),
    request: (params) => {
      const body = targetFields(params, { shoot: rows(params, byId("shoot"), 1), fight: rows(params, byId("fight"), 1),
                                          distance: number(params, "distance") ?? 0, situation: situation(params) });
      body.overwatch = rows(params, byId("overwatch"));
      if (params.get("charger")) body.charger = params.get("charger");
      if (params.get("led_by")) body.led_by = leaders(params.get("led_by"));
      if (params.get("charge_reroll") === "1") body.charge_reroll = true;
      if (params.get("charge_modifier")) body.charge_modifier = Number(params.get("charge_modifier"));
      if (params.getAll("with").length) body.with = params.getAll("with");
      return ["/api/turn", body];
    },
    draw: drawAttack,
  },
  survive: {
    title: "Survive", help: "How a unit fares against each standard attacker.",
    panels: () => panels("target", "target-extra", "target-loadout", "survive"),
    request: (params) => {
      const body = { unit: params.get("target") || "", attackers: params.getAll("attacker_name") };
      if (params.has("target_models")) body.target_models = Number(params.get("target_models"));
      if (params.get("target_loadout")) body.loadout = list(params.get("target_loadout"));
      if (params.get("leader")) body.leader = leaders(params.get("leader"));
      if (params.get("at_least")) body.at_least = Number(params.get("at_least"));
      return ["/api/survive", body];
    },
    draw: (answer, exact) => drawPanel(answer, exact, true),
  },
  roll: {
    title: "Dice test", help: "Dice tests outside the attack sequence: charge, advance, Battle-shock and more.",
    panels: () => panels("roll"),
    request: (params) => {
      const kind = params.get("roll") || "charge";
      const fields = {
        charge: { distance: number(params, "distance") ?? 9, reroll: params.get("reroll") === "1",
                  modifier: number(params, "modifier") ?? 0 },
        advance: {},
        "battle-shock": { ld: number(params, "ld") ?? 7, insane_bravery: params.get("insane_bravery") === "1" },
        "desperate-escape": { tests: number(params, "tests") ?? 1 },
        hazardous: { weapons: number(params, "weapons") ?? 1, bearer: params.get("bearer") || "T3 Sv4+ W1",
                     rules: params.get("rules") || "current" },
        grenade: { target: params.get("target") || "" },
      }[kind];
      return [`/api/roll/${kind}`, fields || {}];
    },
    draw: drawRoll,
  },
  matchup: {
    title: "Matchup", help: "Army against army: every unit of one attacks every unit of the other with its whole loadout.",
    panels: () => panels("matchup", "situation"), exact: false,
    request: (params) => {
      const body = { army_a: side(params, byId("army-a")), army_b: side(params, byId("army-b")),
                     situation: situation(params) };
      if (params.get("phase")) body.phase = params.get("phase");
      if (params.get("both") === "1") body.both = true;
      return ["/api/matchup", body];
    },
    draw: drawMatchup,
  },
};

// One army of a matchup: its rows' units ('NAME xSIZE' where a size is given) and, where they name its list's
// units (#1) or no unit at all, its army list.
function side(params, list) {
  const key = names(list);
  const sizes = params.getAll(key.models);
  const units = params.getAll(key.text).map((text, i) => [text.trim(), sizes[i]]).filter(([text]) => text)
    .map(([text, size]) => (size ? `${text} x${size}` : text));
  const own = armies[list.dataset.army];
  const body = units.length ? { units } : {};
  if (!units.length || units.some((unit) => unit.startsWith("#"))) {
    if (!own) {
      throw new Error(`${list.dataset.army === "mine" ? "your army" : "their army"} ${units.length
        ? "names units of an army list (#1, #2, ...): choose the list's file" : "has no units: name them, or choose its army list"}`);
    }
    body.army = own.data;
  }
  return body;
}

const kindOf = (params) => (KINDS[params.get("q")] ? params.get("q") : unitMode(params) ? "unit" : "attack");

// ------------------------------------------------------------------ the form and the URL
function showKind(kind) {
  const mode = form.querySelector("[name=mode]:checked").value;
  const shown = KINDS[kind].panels(mode);
  if (KINDS[kind].exact !== false) shown.add("exact");
  const roll = byId("roll").value;
  form.elements.q.value = kind;
  const active = (el) => {  // every panel the element is in is shown (and, for a dice test's fields, it is chosen)
    for (let panel = el.closest("[data-panel]"); panel; panel = panel.parentElement.closest("[data-panel]")) {
      if (!shown.has(panel.dataset.panel)) return false;
    }
    const test = el.closest("[data-roll]");
    return !test || test.dataset.roll === roll;
  };
  for (const el of form.querySelectorAll("[data-panel], [data-roll]")) el.hidden = !active(el);
  for (const control of form.elements) if (control.closest("[data-panel], [data-roll]")) control.disabled = !active(control);
  const weapons = byId("weapons");  // its rows may be units by name only in a plan
  weapons.classList.toggle("profiles-only", kind !== "plan");
  for (const select of weapons.querySelectorAll("select")) select.disabled ||= kind !== "plan";
  byId("target-legend").textContent = kind === "survive" ? "The unit" : "The target";
  byId("target-label").textContent = kind === "survive" ? "Unit: a profile, a unit by name or a standard target"
                                                        : "Target: a profile, a unit by name or a standard target";
  byId("ask-title").textContent = KINDS[kind].title;
  byId("kind-help").textContent = KINDS[kind].help;
  for (const link of byId("kinds").querySelectorAll("a")) {
    if (link.dataset.kind === kind) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

// The enabled controls of the form as a query string: only what differs from the defaults.
function formToParams(kind = form.elements.q.value) {
  const params = new URLSearchParams({ q: kind });
  for (const el of form.elements) {
    const inCompare = Boolean(el.closest("[data-panel=compare]"));
    if (!el.name || el.disabled || el.name === "q" || inCompare !== (kind === "compare")) {
      if (!(kind === "compare" && el.name === "exact")) continue;
    }
    const rowField = el.closest(".weapon-row");
    if (el.name === "with_more") {  // each name typed is one more named rule
      for (const name of el.value.split(",").map((part) => part.trim()).filter(Boolean)) params.append("with", name);
    } else if (el.type === "checkbox") {
      if (el.checked) params.append(el.name, el.value === "on" ? "1" : el.value);
    } else if (el.type === "radio") {
      if (el.checked && el.value !== "weapons") params.append(el.name, el.value);
    } else if (el.type === "file") {
      continue;
    } else if (rowField) {
      params.append(el.name, el.value.trim());
    } else if (el.value.trim() !== (el.dataset.default ?? "")) {
      params.append(el.name, el.value.trim());
    }
  }
  if (kind === "compare") for (const li of byId("scenarios").children) params.append("s", li.dataset.question);
  return params;
}

function paramsToForm(params) {
  form.reset();
  const kind = kindOf(params);
  const mode = params.get("mode") === "unit" || (kind === "unit") ? "unit" : "weapons";
  form.querySelector(`[name=mode][value=${mode}]`).checked = true;
  for (const id of ["weapons", "shoot", "fight", "overwatch", "army-a", "army-b"]) fillList(byId(id), params);
  const named = new Set(params.getAll("with")), attackers = new Set(params.getAll("attacker_name"));
  const ticked = new Set();
  for (const el of form.elements) {
    if (!el.name || el.closest(".weapon-row") || ["mode", "q"].includes(el.name) || el.type === "file") continue;
    if (el.name === "with") {  // a rule named by its key ticks its box; one named otherwise is kept as typed
      el.checked = named.has(el.value);
      if (el.checked) ticked.add(el.value);
    }
    else if (el.name === "attacker_name") el.checked = attackers.has(el.value);
    else if (el.type === "checkbox") el.checked = params.get(el.name) === "1";
    else if (params.has(el.name)) {
      if (el.id === "size" && ![...el.options].some((o) => o.value === params.get(el.name))) {
        el.append(new Option(params.get(el.name), params.get(el.name)));  // a size before its datasheet came
      }
      el.value = params.get(el.name);
    }
  }
  byId("with-more").value = [...named].filter((name) => !ticked.has(name)).join(", ");  // the others, kept as typed
  byId("scenarios").replaceChildren();
  params.getAll("s").forEach((text) => addScenario(new URLSearchParams(text)));
  byId("roll").value = params.get("roll") || "charge";
  showKind(kind);
  if (Object.keys(SITUATION).some((name) => params.has(name))) byId("situation").open = true;
  if (named.size) byId("named-rules-box").open = true;
  if (attackers.size) byId("attackers-box").open = true;
  if (params.getAll("o").length) byId("overwatch-box").open = true;
  byId("ask-line").textContent = "";
}

function title(params) {  // a short line for the folded form
  const kind = kindOf(params);
  if (kind === "compare") return `${params.getAll("s").length} scenarios`;
  if (kind === "roll") return params.get("roll") || "charge";
  if (kind === "matchup") {
    return ["a", "b"].map((k) => params.getAll(k).filter(Boolean).join(", ") || "an army list").join("  against  ");
  }
  const who = unitMode(params) || kind === "unit" ? params.get("attacker") : params.getAll("w").join(", ");
  return [who, params.get("target")].filter(Boolean).join("  ->  ");
}

// ------------------------------------------------------------------ compare: the scenarios
function scenarioTitle(scenario) {
  const label = scenario.get("label");
  if (label) return label;
  const who = unitMode(scenario) ? scenario.get("attacker")
    : scenario.getAll("w").map((w, i) => `${scenario.getAll("m")[i] || 1} x [${w}]`).join(" + ");
  // what else it asks: the unit's choices (a trial found two scenarios, standard and supercharged, of one title)
  const chosen = ["size", "loadout", "profiles", "with", "led_by", "melee", "pistols"].filter((name) => scenario.get(name))
    .map((name) => (scenario.get(name) === "1" ? name : `${name}: ${scenario.getAll(name).join(", ")}`));
  const assumed = [...chosen, ...Object.keys(SITUATION).filter((name) => scenario.has(name))
    .map((name) => (SITUATION[name] === "bool" ? name : `${name}=${scenario.get(name)}`))];
  return `${who}  ->  ${scenario.get("target") || ""}${assumed.length ? ` (${assumed.join("; ")})` : ""}`;
}

function addScenario(scenario) {
  const box = byId("scenarios");
  const n = box.children.length + 1;
  const li = document.createElement("li");
  li.dataset.question = scenario.toString();
  li.innerHTML = `<label for="label-${n}">Scenario ${n}: <span class="scenario-title"></span> (its label)</label>` +
                 `<input id="label-${n}" class="scenario-label"><button type="button" class="remove">Remove scenario ${n}</button>`;
  li.querySelector(".scenario-title").textContent = scenarioTitle(scenario);
  li.querySelector("input").value = scenario.get("label") || "";
  li.querySelector("input").addEventListener("change", (event) => {
    const changed = new URLSearchParams(li.dataset.question);
    if (event.target.value.trim()) changed.set("label", event.target.value.trim()); else changed.delete("label");
    li.dataset.question = changed.toString();
  });
  li.querySelector(".remove").addEventListener("click", () => li.remove());
  box.append(li);
}

// ------------------------------------------------------------------ drawing the answer
function svg(name, attributes, text) {
  const el = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, value);
  if (text !== undefined) el.textContent = text;
  return el;
}

function cell(tag, text, className) {
  const el = document.createElement(tag);
  el.textContent = text;
  if (className) el.className = className;
  return el;
}

// Rows of a chart: k with its value for each series; a row whose every value is below 0.01% is left out, and
// those left out are said in one line under the chart (but for rows of chance 0 in every series: impossible).
function chartRows(values, first) {
  const shown = [], hidden = [];
  values.forEach((row, i) => {
    if (row.some((v) => v >= SHOWN)) shown.push([i + first, row]);
    else if (row.some((v) => v > 0)) hidden.push([i + first, row]);
  });
  return { shown, hidden };
}

// One chart: horizontal bars, one row per k, one bar per series (a series' colour and its number beside it).
function drawChart(caption, kind, series, exact) {
  const figure = document.createElement("figure");
  figure.className = "chart";
  figure.dataset.kind = kind;
  const id = `chart-${document.querySelectorAll("figure.chart").length + 1}`;
  figure.append(Object.assign(cell("figcaption", caption), { id: `${id}-caption` }));
  const described = series.map((s) => describe(s.dist));
  const longest = Math.max(...described.map((d) => d.p.length));
  const first = kind === "tail" ? 1 : 0;
  const values = [];
  for (let k = first; k < longest; k++) {
    values.push(described.map((d) => (kind === "tail" ? d.tail[k] ?? 0 : d.p[k] ?? 0)));
  }
  const { shown, hidden } = chartRows(values, first);
  figure.dataset.folded = String(hidden.length);
  const many = series.length > 1;
  const bar = many ? 16 : 22, gap = 8, left = 46, right = many ? 116 : 84;
  const width = Math.max(byId("charts").clientWidth || 320, 240);
  const height = Math.max(shown.length, 1) * (bar * series.length + gap) + 4;
  const chart = svg("svg", { role: "img", "aria-labelledby": `${id}-caption`, viewBox: `0 0 ${width} ${height}`,
                             class: "bars", "data-rows": String(shown.length) });
  const barWidth = width - left - right;
  shown.forEach(([k, row], r) => {
    const y = r * (bar * series.length + gap) + 2;
    chart.append(svg("text", { x: left - 8, y: y + (bar * series.length) / 2, class: "axis", "text-anchor": "end",
                               "dominant-baseline": "central" }, kind === "tail" ? `≥ ${k}` : `${k}`));
    row.forEach((p, s) => {
      const top = y + s * bar;
      if (!many) chart.append(svg("rect", { x: left, y: top + 2, width: barWidth, height: bar - 4, class: "track" }));
      const rect = svg("rect", { x: left, y: top + 2, width: (barWidth * Math.min(Math.max(p, 0), 1)).toFixed(2),
                                 height: bar - 4, class: many ? `bar series-${(s % 5) + 1}` : "bar", "data-k": String(k),
                                 "data-p": String(p), "data-series": String(s + 1) });
      const raw = kind === "tail" ? null : series[s].dist.pmf[k];
      const words = kind === "tail" ? `P(at least ${k})` : `P(${k})`;
      rect.append(svg("title", {}, `${many ? `${s + 1}: ` : ""}${words} ${said(raw !== null && exact ? chance(raw) : percent(p))}`));
      chart.append(rect);
      chart.append(svg("text", { x: width - 4, y: top + bar / 2, class: "value", "text-anchor": "end",
                                 "dominant-baseline": "central" }, `${many ? `${s + 1}: ` : ""}${percent(p)}`));
    });
  });
  if (!shown.length) chart.append(svg("text", { x: 4, y: 14, class: "axis" }, "nothing above 0.01%"));
  figure.append(chart);
  if (many) {
    const legend = document.createElement("ol");
    legend.className = "legend";
    series.forEach((s, i) => {
      const item = cell("li", s.label);
      item.prepend(Object.assign(document.createElement("span"), { className: `swatch series-${(i % 5) + 1}` }));
      legend.append(item);
    });
    figure.append(legend);
  }
  if (hidden.length) {
    const ks = hidden.map(([k]) => k);
    const total = hidden.reduce((sum, [, row]) => sum + Math.max(...row), 0);
    const span = ks.length > 1 ? `k = ${ks[0]} to ${ks[ks.length - 1]}` : `k = ${ks[0]}`;
    const words = kind === "tail" ? `P(at least k) for ${span}`
                                  : `${others(hidden.length)}`;
    const each = kind === "tail" || hidden.length > 1 ? "each below" : "below";
    figure.append(cell("p", `(${words}: ${each} 0.01%${kind === "tail" ? "" : `, ${percent(total)} in all`})`,
                       "hint folded"));
  }
  byId("charts").append(figure);
}

const others = (n) => `${n} other value${n > 1 ? "s" : ""}`;

function headline(items) {  // [label, key, value, format, and what it is of (a matchup's pair), if said]
  const box = byId("headline");
  box.replaceChildren();
  for (const [label, key, value, format, of] of items) {
    if (value === undefined || value === null) continue;
    const div = document.createElement("div");
    const dd = cell("dd", format(value));
    dd.dataset.key = key;
    dd.dataset.value = String(toNumber(value));
    const dt = cell("dt", label);
    if (of) dt.append(cell("span", of, "of"));
    div.append(dt, dd);
    box.append(div);
  }
}

function drawHeader(answer) {
  const list = byId("header");
  list.replaceChildren(...(answer.header || []).map((line) => cell("li", line)));
  byId("header-box").hidden = !(answer.header || []).length;
  // each rule the answer says it did not apply ('"with" 'X' assumes it'), offered as a button that asks again with it
  const unapplied = [...new Set((answer.header || []).flatMap((line) => [...line.matchAll(/"with" '([^']+)' assumes/g)]
    .map((found) => found[1])))];
  byId("apply").replaceChildren(...unapplied.map((name) => {
    const button = cell("button", `Apply ${name}`);
    button.type = "button";
    button.dataset.rule = name;
    button.addEventListener("click", () => applyRule(name));
    return button;
  }));
  byId("apply-box").hidden = !unapplied.length;
}

// Whether the named-rule checkbox `box` is the rule `name` (its key, or its name as an answer writes it).
function sameRule(box, name) {
  const wanted = name.trim().toLowerCase();
  return box.value.toLowerCase() === wanted || (box.dataset.name || "").toLowerCase() === wanted;
}

// Ask the question shown again with the rule `name` too: its box ticked, else its name typed.
function applyRule(name) {
  const box = [...form.querySelectorAll("input[name=with]")].find((el) => sameRule(el, name));
  if (box) box.checked = true;
  else {
    const more = byId("with-more");
    more.value = [...more.value.split(",").map((part) => part.trim()).filter(Boolean), name].join(", ");
  }
  byId("named-rules-box").open = true;
  form.requestSubmit();
}

function drawTables(answer, keys, exact) {
  const tables = byId("tables");
  for (const key of keys) {
    const dist = answer[key];
    const details = document.createElement("details");
    details.append(cell("summary", `${LABELS[key] || key.replaceAll("_", " ")}: every value`));
    const table = document.createElement("table");
    const head = document.createElement("tr");
    head.append(cell("th", "k"), cell("th", "P(=k)", "num"), cell("th", "P(≥k)", "num"));
    table.append(Object.assign(document.createElement("thead"), {}), document.createElement("tbody"));
    table.tHead.append(head);
    const { p, tail } = describe(dist);
    let hidden = 0, total = 0;
    dist.pmf.forEach((raw, k) => {
      if (p[k] === 0) return;  // a value that cannot happen (below the least, an exact zero): not 'below 0.01%'
      if (p[k] < SHOWN) { hidden += 1; total += p[k]; return; }
      const tr = document.createElement("tr");
      tr.append(cell("th", String(k)), cell("td", exact ? chance(raw) : percent(raw), "num"),
                cell("td", percent(tail[k]), "num"));
      table.tBodies[0].append(tr);
    });
    details.append(table);
    if (hidden) {
      details.append(cell("p", `(${others(hidden)}, ${hidden > 1 ? "each " : ""}below 0.01%, ${percent(total)} in all)`,
                          "hint"));
    }
    tables.append(details);
  }
}

function drawNotes(answer) {
  const notes = byId("notes");
  const chances = [["p_below_half", "P(target Below Half-strength, not destroyed)"],
                   ["p_battle_shocked", "P(target then fails its Battle-shock test)"],
                   ["p_destroyed_by_shooting", "P(destroyed by the shooting alone)"]];
  for (const [key, label] of chances) {
    if (answer[key] !== undefined && answer[key] !== null) notes.append(cell("li", `${label} ${said(chance(answer[key]))}`));
  }
  if (answer.groups && answer.groups.length > 1) {
    answer.groups.forEach((group, i) => notes.append(cell("li", `group ${i + 1}, ${group.name} (${group.models}): ` +
      `${mean(group.models_destroyed.mean)} destroyed on average, P(all destroyed) ${said(chance(group.p_destroyed))}`)));
  }
  if (answer.hazardous_tests_failed) {
    const lost = answer.hazardous_models_lost;
    notes.append(cell("li", `Hazardous: ${mean(answer.hazardous_tests_failed.mean)} tests failed on average` +
      (lost ? `; ${mean(lost.mean)} attacking models lost on average` : "")));
  }
  if (answer.kills_per_100_points !== undefined && answer.kills_per_100_points !== null) {
    notes.append(cell("li", `kills per 100 points = ${mean(answer.kills_per_100_points)}`));
  }
}

// What fired, in one line: the unit's firings, else the weapons of the title.
function fired(answer) {
  if (answer.firings) return answer.firings.map((f) => `${f.models} × ${f.weapon}`).join(", ");
  return (answer.title || "").split("  ->  ")[0];
}

function drawAttack(answer, exact) {
  const items = [["Mean damage", "damage.mean", answer.damage.mean, mean],
                 ["Mean models destroyed", "models_destroyed.mean", answer.models_destroyed.mean, mean],
                 ["P(unit destroyed)", "p_destroyed", answer.p_destroyed, chance]];
  if (answer.need && answer.need.models === null) {  // no size reaches it: the largest size's answer
    items.unshift(["No size reaches it; at the largest", "need.largest", answer.need.largest, String]);
  } else if (answer.need) items.unshift(["Fewest models", "need.models", answer.need.models, String]);
  if (answer.p_charge !== undefined) items.push(["P(charge succeeds)", "p_charge", answer.p_charge, chance]);
  headline(items);
  const what = fired(answer);  // said apart where the title does not already say it
  byId("fired").textContent = answer.firings || answer.need ? `What fired: ${what}` : "";
  drawHeader(answer);
  drawNotes(answer);
  drawChart("P(at least k models destroyed)", "tail", [{ dist: answer.models_destroyed }], exact);
  drawChart("Damage dealt (wounds lost): P(exactly k)", "pmf", [{ dist: answer.damage }], exact);
  drawTables(answer, Object.keys(LABELS).filter((key) => answer[key] && answer[key].pmf), exact);
}

// compare and survive: a row per scenario, their charts overlaid; the cards hold the first scenario (compare's
// baseline), or with `deadliest` the attacker most likely to destroy the unit (survive's answer: a trial found the
// first standard attacker's numbers there)
function drawPanel(answer, exact, deadliest = false) {
  const danger = (row) => [toNumber(row.p_destroyed), toNumber(row.kills)];
  const at = !deadliest ? 0 : answer.rows.reduce((best, row, i) => {
    const [p, k] = danger(row), [bp, bk] = danger(answer.rows[best]);
    return p > bp || (p === bp && k > bk) ? i : best;
  }, 0);
  const first = answer.rows[at];
  headline([[`Mean damage (${at + 1})`, `rows.${at}.damage`, first.damage, mean],
            [`Mean models destroyed (${at + 1})`, `rows.${at}.kills`, first.kills, mean],
            [`P(unit destroyed) (${at + 1})`, `rows.${at}.p_destroyed`, first.p_destroyed, chance]]);
  byId("fired").textContent = deadliest ? `Deadliest here: ${at + 1}: ${first.label}` : `1: ${first.label}`;
  const table = document.createElement("table");
  table.id = "grid";
  const head = document.createElement("tr");
  const k = new Set(answer.rows.map((r) => r.k)).size === 1 ? `P(≥${first.k})` : "P(≥k)";
  // what a scenario costs its own side, and what it gains for its points, where any row has them (a trial found a
  // supercharged plasma's Hazardous losses left out of the comparison)
  const has = (key) => answer.rows.some((row) => row[key] !== null && row[key] !== undefined);
  const extra = [["hazardous_models_lost", "own models lost (Hazardous)"],
                 has("points_destroyed_per_100_points") ? ["points_destroyed_per_100_points", "points destroyed per 100"]
                   : ["kills_per_100_points", "kills per 100 points"]].filter(([key]) => has(key));
  for (const text of ["", "scenario", "mean damage", "mean kills", "P(destroyed)", k, ...extra.map(([, label]) => label)]) {
    head.append(cell("th", text));
  }
  table.append(document.createElement("thead"), document.createElement("tbody"));
  table.tHead.append(head);
  answer.rows.forEach((row, i) => {
    const tr = document.createElement("tr");
    tr.append(cell("td", String(i + 1)), cell("th", row.label), cell("td", mean(row.damage), "num"),
              cell("td", mean(row.kills), "num"), cell("td", chance(row.p_destroyed), "num"),
              cell("td", chance(row.p_at_least), "num"),
              ...extra.map(([key]) => cell("td", row[key] === null || row[key] === undefined ? "-" : mean(row[key]),
                                           "num")));
    table.tBodies[0].append(tr);
  });
  byId("grid-box").append(table);
  drawHeader(answer);
  const series = answer.rows.map((row, i) => ({ label: `${i + 1}: ${row.label}`, dist: answer[`models_destroyed_${i + 1}`] }));
  drawChart("P(at least k models destroyed), each scenario", "tail", series, exact);
}

function drawPlan(answer, exact) {
  const best = answer.rows[0];
  const targets = Object.keys(best).filter((key) => key.startsWith("target_"));
  const order = targets.map((key, t) => `target ${t + 1}: ${best[key] || "-"}`).join("; ");
  headline([[answer.goal === "destroy" ? "P(destroyed), best plan" : "Mean kills, best plan", "rows.0.value",
             best.value, answer.goal === "destroy" ? chance : mean]]);
  byId("fired").textContent = `Best: fire ${order} (weapons numbered as below)`;
  const table = document.createElement("table");
  table.id = "grid";
  const head = document.createElement("tr");
  for (const text of ["rank", ...targets.map((_, t) => `at target ${t + 1}`), answer.goal === "destroy" ? "P" : "kills"]) {
    head.append(cell("th", text));
  }
  table.append(document.createElement("thead"), document.createElement("tbody"));
  table.tHead.append(head);
  for (const row of answer.rows.slice(0, 10)) {
    const tr = document.createElement("tr");
    tr.append(cell("td", String(row.rank)), ...targets.map((key) => cell("td", row[key] || "-")),
              cell("td", answer.goal === "destroy" ? chance(row.value) : mean(row.value), "num"));
    table.tBodies[0].append(tr);
  }
  byId("grid-box").append(table);
  drawHeader(answer);
  targets.forEach((_, t) => {
    const dist = answer[`models_destroyed_${t + 1}`];
    if (dist) drawChart(`P(at least k models destroyed), target ${t + 1}, best plan`, "tail", [{ dist }], exact);
  });
}

function drawRoll(answer, exact) {
  if (answer.damage) {  // the grenade: the wounds its mortal wounds take and the models destroyed, as an attack's
    headline([["Mean wounds lost", "damage.mean", answer.damage.mean, mean],
              ["Mean models destroyed", "models_destroyed.mean", answer.models_destroyed.mean, mean],
              ["P(unit destroyed)", "p_destroyed", answer.p_destroyed, chance]]);
    byId("fired").textContent = "";
    drawHeader(answer);
    drawChart("P(at least k models destroyed)", "tail", [{ dist: answer.models_destroyed }], exact);
    drawChart("Wounds lost: P(exactly k)", "pmf", [{ dist: answer.damage }], exact);
    return;
  }
  const dist = answer.roll || answer;
  if (answer.p_success !== undefined) {
    headline([["P(success)", "p_success", answer.p_success, chance], ["Mean roll", "roll.mean", dist.mean, mean]]);
  } else {
    const counted = { advance: "Mean Advance (inches)", hazardous: "Mean models lost", "desperate-escape": "Mean models lost" };
    headline([[counted[byId("roll").value] || "Mean", "mean", answer.mean, mean],
              ["P(unit destroyed)", "p_destroyed", answer.p_destroyed, chance]]);
  }
  byId("fired").textContent = answer.title || "";
  drawHeader(answer);
  drawChart("P(at least k)", "tail", [{ dist }], exact);
  drawChart("P(exactly k)", "pmf", [{ dist }], exact);
}

// A matchup: the best pair for each figure first, each army's units, what is assumed, then one heatmap table per
// army and phase (attackers in rows, targets in columns), the number in each cell and its colour from a
// colour-blind safe scale (viridis), its text black or white, whichever contrasts more.
const FIGURES = { mean_models_destroyed: ["Most models destroyed", mean], mean_damage: ["Most damage", mean],
                  p_destroyed: ["Best P(unit destroyed)", chance],
                  points_destroyed_per_100: ["Most points destroyed per 100 points", mean] };
const VIRIDIS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];

function heat(t) {  // the colour at t (0 to 1) of the scale, and the text colour that reads on it
  const x = Math.min(Math.max(t, 0), 1) * (VIRIDIS.length - 1), i = Math.min(Math.floor(x), VIRIDIS.length - 2);
  const rgb = VIRIDIS[i].map((c, j) => Math.round(c + (VIRIDIS[i + 1][j] - c) * (x - i)));
  const linear = rgb.map((c) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4));
  const lum = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2];
  return [`rgb(${rgb.join(", ")})`, (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) ? "#000000" : "#ffffff"];
}

function drawMatchup(answer) {
  const rows = answer.rows.map((row, i) => ({ ...row, i }));
  const first = rows.filter((row) => row.army === rows[0].army);  // army A attacking
  const items = [];
  for (const [figure, [label, format]] of Object.entries(FIGURES)) {
    const known = first.filter((row) => row[figure] !== null);
    if (!known.length) continue;
    const best = known.reduce((a, b) => (b[figure] > a[figure] ? b : a));
    items.push([label, `rows.${best.i}.${figure}`, best[figure], format,
                `${best.attacker} → ${best.target}, ${best.phase}`]);
  }
  headline(items);
  byId("answer-title").textContent = `${first[0].army} against ${first[0].against}`;
  const units = (army) => [...new Set(rows.filter((row) => row.army === first[0].army)
    .map((row) => (army === row.army ? row.attacker : row.target)))];
  byId("fired").textContent = `${first[0].army}: ${units(first[0].army).join(", ")}; ` +
                              `${first[0].against}: ${units(first[0].against).join(", ")}`;
  drawHeader({ header: answer.assumptions.map((line) => line.trim()) });
  const notes = byId("notes");
  const reasons = new Set(rows.filter((row) => row.reason).map((row) => `not answered: ${row.attacker} ` +
    `(${row.army}, ${row.phase} phase): ${row.reason}`));
  for (const reason of reasons) notes.append(cell("li", reason));
  // what the answers said of their units (abilities not applied, the smallest size taken, ...), as the CLI says it
  for (const group of answer.notes) {
    const where = answer.notes.length > 1 ? `${group.army}, ${group.phase} phase: ` : "";
    for (const line of group.notes) notes.append(cell("li", where + line));
  }
  const figure = FIGURES[byId("figure").value] ? byId("figure").value : "mean_models_destroyed";
  const groups = new Map();
  for (const row of rows) {
    const key = `${row.army}\n${row.phase}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(row);
  }
  for (const group of groups.values()) drawHeatmap(group, figure);
}

function drawHeatmap(rows, figure) {
  const { army, against, phase } = rows[0];
  const attackers = [...new Set(rows.map((row) => row.attacker))], targets = [...new Set(rows.map((row) => row.target))];
  const values = rows.map((row) => row[figure]).filter((v) => v !== null);
  const low = Math.min(...values), high = Math.max(...values);
  const box = document.createElement("figure");
  box.className = "heatmap";
  Object.assign(box.dataset, { army, phase, figure });
  const caption = `${byId("figure").selectedOptions[0]?.textContent || figure}: ${army} against ${against}, ` +
                  `${phase} phase`;
  box.append(cell("figcaption", caption));
  const scroll = Object.assign(document.createElement("div"), { className: "heat-box", tabIndex: 0 });
  scroll.setAttribute("role", "region");
  scroll.setAttribute("aria-label", caption);
  const table = document.createElement("table");
  table.className = "heat";
  const head = document.createElement("tr");
  head.append(Object.assign(cell("th", `${army} attacks →`), { scope: "col" }),
              ...targets.map((target) => Object.assign(cell("th", target), { scope: "col" })));
  table.append(document.createElement("thead"), document.createElement("tbody"));
  table.tHead.append(head);
  const cells = new Map(rows.map((row) => [`${row.attacker}\n${row.target}`, row]));
  for (const attacker of attackers) {
    const tr = document.createElement("tr");
    tr.append(Object.assign(cell("th", attacker), { scope: "row" }));
    for (const target of targets) {
      const row = cells.get(`${attacker}\n${target}`);
      const value = row ? row[figure] : null;
      const td = cell("td", value === null ? "–" : FIGURES[figure][1](value), "num");
      Object.assign(td.dataset, { attacker, target, value: value === null ? "" : String(value) });
      if (value === null) td.title = row?.reason || "no value";
      else [td.style.backgroundColor, td.style.color] = heat(high > low ? (value - low) / (high - low) : 0);
      tr.append(td);
    }
    table.tBodies[0].append(tr);
  }
  scroll.append(table);
  box.append(scroll, cell("p", `darker: less, lighter: more (from ${FIGURES[figure][1](low)} to ` +
                               `${FIGURES[figure][1](high)}); – where the unit cannot attack`, "hint"));
  byId("tables").append(box);
}

let shown = null;  // the answer on the page, redrawn when the page's width changes

function show(answer, params) {
  shown = [answer, params];
  const kind = kindOf(params);
  const exact = params.get("exact") === "1";
  exactShown = exact;
  for (const id of ["charts", "tables", "grid-box", "notes"]) byId(id).replaceChildren();
  byId("answer-title").textContent = answer.title || KINDS[kind].title;
  byId("answer").hidden = false;  // drawn at its width
  KINDS[kind].draw(answer, exact);
  byId("share").href = `${location.pathname}?${params}`;
}

// ------------------------------------------------------------------ the army list
// {name, data (base64), units} of each army list the page keeps: yours (for every question) and theirs (a matchup's)
const ARMY_LISTS = { mine: { key: "army", file: "army-file", status: "army-status", forget: "army-forget" },
                     theirs: { key: "army-b", file: "army-b-file", status: "army-b-status", forget: "army-b-forget" } };
const armies = Object.fromEntries(Object.entries(ARMY_LISTS).map(([side, { key }]) =>
  [side, JSON.parse(sessionStorage.getItem(key) || "null")]));

function namesUnit(body) {  // the request names a unit of an army list: '#3'
  return JSON.stringify(body).includes('"#');
}

async function ask(params) {
  const kind = kindOf(params);
  const button = byId("ask");
  byId("error").hidden = true;
  byId("answer").setAttribute("aria-busy", "true");
  button.disabled = true;
  let body = {};
  try {
    const [path, asked] = KINDS[kind].request(params);
    body = asked;
    if (params.get("exact") === "1" && KINDS[kind].exact !== false) body.exact = true;
    if (kind !== "matchup" && namesUnit(body)) {  // a matchup sends each army's own list (`side`)
      if (!armies.mine) throw new Error("this question names units of an army list (#1, #2, ...): choose the list's " +
                                        "file under 'Your army list' to answer it");
      body.army = armies.mine.data;
    }
    const response = await fetch(path, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error || response.statusText);
    show(answer, params);
    inView(byId("answer"));
  } catch (error) {
    byId("answer").hidden = true;
    byId("error").textContent = `error: ${error.message}`;
    byId("error").hidden = false;
    byId("ask-box").open = true;
    if (!armies.mine && (namesUnit(body) || kind === "matchup")) byId("army-box").open = true;
    inView(byId("error"));
  } finally {
    button.disabled = false;
    byId("answer").removeAttribute("aria-busy");
  }
}

function inView(element) {  // the answer (or the refusal) scrolled to, where asking left it out of sight
  const top = element.getBoundingClientRect().top;
  if (top < 0 || top > window.innerHeight * 0.8) element.scrollIntoView({ block: "start" });
}

function base64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

// The file's bytes as sent: a .rosz (a zip) as it is, anything else gzip-compressed where the browser can.
async function packed(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  if ((bytes[0] === 0x50 && bytes[1] === 0x4b) || typeof CompressionStream === "undefined") return bytes;
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function readArmy(file, side) {
  const status = byId(ARMY_LISTS[side].status);
  status.textContent = `reading ${file.name} ...`;
  try {
    const data = base64(await packed(file));
    if (data.length > MAX_ARMY) throw new Error(`${file.name} is too long to send (${Math.round(data.length / 1024)} KiB)`);
    const response = await fetch("/api/army", { method: "POST", headers: { "Content-Type": "application/json" },
                                                body: JSON.stringify({ army: data }) });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error || response.statusText);
    armies[side] = { name: answer.name, data, units: answer.units };
    sessionStorage.setItem(ARMY_LISTS[side].key, JSON.stringify(armies[side]));
    showArmy(side);
  } catch (error) {
    status.textContent = `error: ${error.message}`;
  }
}

function showArmy(side) {
  const army = armies[side];
  byId(ARMY_LISTS[side].status).textContent = army
    ? `${army.name}: ${army.units.map((u) => `#${u.number} ${u.name}`).join(", ")}` : "";
  byId(ARMY_LISTS[side].forget).hidden = !army;
  if (army && side === "mine") byId("army-box").open = true;
}

// ------------------------------------------------------------------ suggestions and a datasheet's controls
let catalogue = { targets: [], datasheets: [] };
const points = (found) => {
  const sizes = Object.entries(found.points || {});
  return sizes.length ? `, ${sizes.map(([n, p]) => `${p} pts (${n})`).join(" / ")}` : "";
};

function option(value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.label = label;
  o.textContent = label;
  return o;
}

const pending = new Map();  // input -> timer of its next search

// The input's suggestions: the army list's units, the standard targets (for a target), and the units the server
// finds for the words typed (its rules data and its index), as players type them.
function suggest(input, now = false) {
  clearTimeout(pending.get(input));
  pending.set(input, setTimeout(async () => {
    const words = input.value.trim();
    const found = [];
    const side = input.closest("[data-army]")?.dataset.army || "mine", army = armies[side];
    const whose = side === "mine" ? "your army list" : "their army list";
    if (army) found.push(...army.units.map((u) => option(`#${u.number}`, `${u.name} (${whose}, ${u.faction}${points(u)})`)));
    if (input.dataset.suggest === "targets") found.push(...catalogue.targets.map((t) => option(t.name, t.description)));
    if (words.length >= 2 && !words.startsWith("#")) {
      try {
        const search = { q: words, limit: "20" };
        if (askedEdition()) search.edition = askedEdition();  // an 11th-edition unit is found in the 11th's index
        const response = await fetch(`/api/units?${new URLSearchParams(search)}`);
        if (response.ok) {
          const units = (await response.json()).units;
          const named = (unit) => units.filter((other) => other.name === unit.name).length;
          // a name several factions use is picked with its faction, as the server asks it to be written
          for (const unit of units) {
            found.push(option(named(unit) > 1 ? `${unit.name} @ ${unit.faction}` : unit.name,
                              `${unit.faction}${points(unit)}`));
          }
        }
      } catch { /* suggestions are a help, never an error */ }
    }
    datalist(input).replaceChildren(...found);
  }, now ? 0 : 150));
}

// The edition the situation's control asks for ("" for the player's default): the units named are looked up in it.
function askedEdition() {
  return byId("situation-edition")?.value || "";
}

function datalist(input) {
  let list = byId(input.getAttribute("list"));
  if (!list) {
    list = document.createElement("datalist");
    list.id = input.getAttribute("list");
    byId("lists").append(list);
  }
  return list;
}

// The size and wargear controls from the attacker's datasheet: the sizes it allows, the choices it offers (each
// with how many models take it, read from and written to the loadout field) and its models' counts.
let sheetAsked = "";
async function fillSheet() {
  const name = byId("attacker").value.trim(), edition = askedEdition();
  if (!name || `${name}|${edition}` === sheetAsked || byId("attacker").disabled) return;
  sheetAsked = `${name}|${edition}`;
  const body = { name };
  if (edition) body.situation = { edition };
  if (name.startsWith("#")) { if (!armies.mine) return; body.army = armies.mine.data; }
  if (byId("target").value.trim() && !byId("target").value.trim().startsWith("#")) body.near = byId("target").value.trim();
  const response = await fetch("/api/datasheet", { method: "POST", headers: { "Content-Type": "application/json" },
                                                   body: JSON.stringify(body) });
  const sheet = await response.json();
  const size = byId("size"), wargear = byId("wargear");
  if (!response.ok || name !== byId("attacker").value.trim()) {
    byId("attacker-sheet").textContent = response.ok ? "" : sheet.error;
    wargear.replaceChildren();
    return;
  }
  const chosen = size.value;
  size.replaceChildren(option("", `smallest the datasheet allows (${sheet.sizes[0]})`),
                       ...sheet.sizes.map((n) => option(String(n), `${n} models${points({ points: { [n]: sheet.points[n] } })}`)));
  size.value = sheet.sizes.map(String).includes(chosen) ? chosen : "";
  byId("attacker-sheet").textContent = `${sheet.name} (${sheet.faction}): ` +
    sheet.models.map((m) => `${m.count}${m.max && m.max !== m.count ? ` (up to ${m.max})` : ""} × ${m.name}`).join(", ");
  const taken = Object.fromEntries(list(byId("loadout").value).map((entry) => {
    const match = entry.match(/^(\d+)\s*x?\s+(.*)$/i);
    return match ? [match[2].toLowerCase(), match[1]] : [entry.toLowerCase(), "1"];
  }));
  wargear.replaceChildren(...sheet.choices.map((choice, i) => {
    const div = document.createElement("div");
    const input = Object.assign(document.createElement("input"), { type: "number", min: "0", id: `choice-${i}`,
                                                                   value: taken[choice] || "0", inputmode: "numeric" });
    input.dataset.choice = choice;
    input.addEventListener("change", writeLoadout);
    div.append(Object.assign(cell("label", `${choice}: models taking it`), { htmlFor: `choice-${i}` }), input);
    return div;
  }));
}

function writeLoadout() {
  const entries = [...byId("wargear").querySelectorAll("input")].filter((i) => Number(i.value) > 0)
    .map((i) => (Number(i.value) === 1 ? i.dataset.choice : `${i.value} ${i.dataset.choice}`));
  byId("loadout").value = entries.join(", ");
}

// ------------------------------------------------------------------ the rules data for the controls
async function loadCatalogue() {
  const response = await fetch("/api/catalogue");
  if (!response.ok) return;
  catalogue = await response.json();
  const chosen = new URLSearchParams(location.search);
  const boxes = (box, items, name, key, text) => {
    for (const item of items) {
      const label = document.createElement("label");
      label.className = "check";
      label.title = item.summary || item.description || "";
      const input = Object.assign(document.createElement("input"), { type: "checkbox", name, value: item[key],
                                                                     checked: chosen.getAll(name).includes(item[key]) });
      input.dataset.name = item.name;
      input.disabled = box.closest("[data-panel]").hidden;
      const span = document.createElement("span");
      span.append(`${item.name} `, cell("span", text(item), "hint"));
      label.append(input, span);
      box.append(label);
    }
  };
  boxes(byId("named-rules"), catalogue.rules, "with", "key", (r) => `(${r.kind}, ${r.side})`);
  // a rule the URL named by its key before its box came (kept as typed): its box ticked now, and no longer typed
  const more = byId("with-more"), keys = new Set(catalogue.rules.map((rule) => rule.key));
  more.value = more.value.split(",").map((part) => part.trim()).filter((name) => name && !keys.has(name)).join(", ");
  boxes(byId("attackers"), catalogue.attackers, "attacker_name", "name", (a) => a.description);
}

function openFromUrl() {
  const params = new URLSearchParams(location.search);
  paramsToForm(params);
  const asked = [...params.keys()].some((key) => key !== "q");
  byId("answer").hidden = true;
  byId("error").hidden = true;
  if (asked) {
    byId("ask-box").open = window.matchMedia("(min-width: 64rem)").matches;  // answer first; the form beside or folded
    byId("ask-line").textContent = title(params);
    ask(params);
  }
  fillSheet();
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const params = formToParams();
  history.pushState(null, "", `?${params}`);
  byId("ask-line").textContent = title(params);
  byId("ask-box").open = window.matchMedia("(min-width: 64rem)").matches;  // answer first: on a phone, the form folds
  ask(params);
});
form.addEventListener("change", (event) => {
  if (event.target.name === "mode" || event.target.id === "roll") showKind(form.elements.q.value);
  if (event.target.name === "mode") fillSheet();
  if (event.target.id === "attacker" || event.target.id === "situation-edition") fillSheet();
  if (event.target.id === "figure" && shown && kindOf(shown[1]) === "matchup" && !byId("answer").hidden) {
    const params = new URLSearchParams(shown[1]);  // the same answer, its tables redrawn for this figure
    if (event.target.value === event.target.dataset.default) params.delete("figure");
    else params.set("figure", event.target.value);
    history.replaceState(null, "", `?${params}`);
    show(shown[0], params);
  }
});
form.addEventListener("input", (event) => {
  if (event.target.dataset.suggest) suggest(event.target);
});
for (const input of form.querySelectorAll("[data-suggest]")) input.addEventListener("focus", () => suggest(input, true));
for (const button of form.querySelectorAll(".add-row")) {
  button.addEventListener("click", () => {
    const row = addRow(byId(button.dataset.list), "", button.dataset.list === "weapons" ? "1" : "");
    showKind(form.elements.q.value);
    row.querySelector("input").focus();
  });
}
byId("add-scenario").addEventListener("click", () => {
  const scenario = formToParams(form.querySelector("[name=mode]:checked").value === "unit" ? "unit" : "attack");
  scenario.delete("q");
  if (form.querySelector("[name=mode]:checked").value === "unit") scenario.set("mode", "unit");
  addScenario(scenario);
});
byId("kinds").addEventListener("click", (event) => {
  const link = event.target.closest("a[data-kind]");
  if (!link) return;
  event.preventDefault();
  showKind(link.dataset.kind);
  byId("ask-box").open = true;
  byId("answer").hidden = true;
  byId("error").hidden = true;
  history.pushState(null, "", `?q=${link.dataset.kind}`);
});
for (const [side, { key, file, forget }] of Object.entries(ARMY_LISTS)) {
  byId(file).addEventListener("change", (event) => { if (event.target.files[0]) readArmy(event.target.files[0], side); });
  byId(forget).addEventListener("click", () => {
    armies[side] = null;
    sessionStorage.removeItem(key);
    byId(file).value = "";
    showArmy(side);
  });
  showArmy(side);
}
for (const button of form.querySelectorAll(".whole-army")) {  // a row for each unit of the army's list
  button.addEventListener("click", () => {
    const list = byId(button.dataset.list), army = armies[list.dataset.army];
    if (!army) { byId(ARMY_LISTS[list.dataset.army].status).textContent = "choose the army list's file first"; return; }
    list.replaceChildren();
    for (const unit of army.units) addRow(list, `#${unit.number}`);
    showKind(form.elements.q.value);
  });
}
window.addEventListener("popstate", openFromUrl);
let width = window.innerWidth;
window.addEventListener("resize", () => {
  if (shown && !byId("answer").hidden && window.innerWidth !== width) show(...shown);
  width = window.innerWidth;
});
// The form and the answer need nothing but the URL and the situation's controls; the named rules' boxes come with
// the catalogue.
loadSituation().then(openFromUrl);
loadCatalogue();
