// The replay viewer: steps through a match (buttons, slider, arrow keys) with the board of
// the step, the mover, the public events and the scores (the move's own text and the scores
// during play only once the host reveals the finished match); a running match is fetched
// again every second and follows its newest move while the viewer is at the end.
"use strict";

let replay = null;
let step = 0;
let matchId = "";
const views = new Map();  // step -> its views, fetched on first show

async function stepViews(index) {
  if (!views.has(index)) views.set(index, getJson(`/api/match/${matchId}/step/${index}`));
  return views.get(index);
}

function showStep(index) {
  if (!replay) return;
  step = Math.max(0, Math.min(index, replay.steps.length - 1));
  const current = replay.steps[step];
  const match = replay.match;
  document.getElementById("slider").value = step;
  document.getElementById("position").textContent = `step ${step} of ${replay.steps.length - 1}`;
  document.getElementById("move").textContent = current.ply === 0 ? "the start"
    : `${current.ply}. ${botName(match.bots[current.seat] ?? "")} (seat ${current.seat})` +
      (current.move ? `: ${current.move}` : "") +
      (current.status && current.status !== "MOVE_STATUS_OK" ? ` [${current.status.replace("MOVE_STATUS_", "")}]` : "");
  document.getElementById("scores").replaceChildren(...(current.scores.length === 0
    ? [el("tr", {}, el("td", { colspan: 3 }, "Scores are shown at the end."))]
    : current.scores.map((score, seat) =>
      el("tr", { class: "score" }, el("td", {}, `seat ${seat}`), el("td", {}, botName(match.bots[seat] ?? "")),
         el("td", { class: "num" }, score)))));
  document.getElementById("events").replaceChildren(...current.events.map((text) => el("li", {}, text)));
  const shown = step;
  stepViews(shown).then((withViews) => {
    if (shown !== step) return;  // the viewer moved on meanwhile
    document.getElementById("board").replaceChildren(drawBoard(match.game, withViews.view, match));
    const hands = document.getElementById("hands");
    hands.replaceChildren();
    if (replay.revealed) {
      hands.append(el("h2", {}, "Every seat's view (revealed after the match)"));
      hands.append(el("div", { class: "seat-views" }, ...withViews.seatViews.map((view, seat) =>
        el("pre", {}, `seat ${seat}\n${JSON.stringify(view.view, null, 1)}`))));
    }
  }).catch(showError);
}

let loaded = false;

async function load(id) {
  const following = replay && replay.match.live && step === replay.steps.length - 1;
  replay = await getJson(`/api/match/${id}`);
  const match = replay.match;
  document.title = `gavel arena — match ${match.id}`;
  document.getElementById("title").replaceChildren(`Match ${match.id}: ${match.game}`,
    match.live ? el("span", { class: "live" }, " live") : "");
  document.getElementById("players").textContent = match.bots.map((bot, seat) =>
    `seat ${seat}: ${botName(bot)}` + (match.finished ? ` — score ${match.scores[seat]}, rank ${match.ranks[seat]}` : "")).join(" · ");
  document.getElementById("slider").max = replay.steps.length - 1;
  if (!loaded) showStep(param("step") !== "" ? Number(param("step")) : match.live ? Infinity : 0);
  else showStep(following ? Infinity : step);
  loaded = true;
  if (match.live) setTimeout(() => load(id).catch(showError), 1000);
}

function main() {
  const id = param("id");
  matchId = id;
  document.getElementById("slider").addEventListener("input", (e) => showStep(Number(e.target.value)));
  document.getElementById("first").addEventListener("click", () => showStep(0));
  document.getElementById("previous").addEventListener("click", () => showStep(step - 1));
  document.getElementById("next").addEventListener("click", () => showStep(step + 1));
  document.getElementById("last").addEventListener("click", () => showStep(Infinity));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") showStep(step - 1);
    else if (e.key === "ArrowRight") showStep(step + 1);
    else if (e.key === "Home") showStep(0);
    else if (e.key === "End") showStep(Infinity);
  });
  load(id).catch(showError);
}
main();
