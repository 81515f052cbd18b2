// Shared by the pages: JSON from /api/..., small DOM helpers.
"use strict";

async function getJson(path) {
  const response = await fetch(path, { cache: "no-store" });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

// An element with attributes and children (strings become text nodes).
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

function percent(x) { return (100 * x).toFixed(1) + "%"; }
function fixed(x, digits = 2) { return Number(x).toFixed(digits); }
function showError(error) { document.querySelector("main").append(el("p", { class: "live" }, String(error))); }
function param(name) { return new URLSearchParams(location.search).get(name) || ""; }
function botName(bot) { return bot === "" ? "(automaton)" : bot; }
