// The leaderboard: per game, bots by conservative rating (mu - 3 sigma).
"use strict";

function standingsTable(game) {
  const head = el("tr", {}, ...["rank", "bot", "rating μ−3σ", "μ ± σ", "games", "win rate [95%]",
    "mean score ± 95%", "strikes"].map((name) => el("th", {}, name)));
  const rows = game.rows.map((row, index) => el("tr", { class: "standing" },
    el("td", { class: "num" }, index + 1),
    el("td", {}, el("a", { href: `/matches.html?bot=${encodeURIComponent(row.bot)}&game=${encodeURIComponent(game.game)}` }, row.bot)),
    el("td", { class: "num" }, fixed(row.conservative)),
    el("td", { class: "num" }, `${fixed(row.mu)} ± ${fixed(row.sigma)}`),
    el("td", { class: "num" }, row.games),
    el("td", { class: "num" }, `${percent(row.winRate)} [${percent(row.winLow)}, ${percent(row.winHigh)}]`),
    el("td", { class: "num" }, `${fixed(row.meanScore)} ± ${fixed(row.scoreHalfWidth)}`),
    el("td", { class: "num" }, row.strikes)));
  return el("section", { class: "game", "data-game": game.game }, el("h2", {}, game.game),
            el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)));
}

async function showStandings() {
  const tournament = document.getElementById("tournament").value;
  const standings = await getJson(`/api/standings?tournament=${tournament}`);
  document.getElementById("summary").textContent = `${standings.matches} matches`;
  document.getElementById("standings").replaceChildren(...standings.games.map(standingsTable));
}

async function main() {
  const select = document.getElementById("tournament");
  const tournaments = await getJson("/api/tournaments");
  for (const t of tournaments.tournaments)
    select.append(el("option", { value: t.id }, `tournament ${t.id} (${t.matches} matches)`));
  select.value = param("tournament") || "0";
  select.addEventListener("change", () => showStandings().catch(showError));
  await showStandings();
}
main().catch(showError);
