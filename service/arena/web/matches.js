// Matches, newest first, filtered by game, bot and tournament; running ones first.
"use strict";

function matchRow(match) {
  const seats = match.bots.map((bot, seat) => match.finished
    ? `${botName(bot)} (${match.scores[seat]}, #${match.ranks[seat]})` : botName(bot)).join(", ");
  return el("tr", { class: "match" },
    el("td", { class: "num" }, match.id), el("td", { class: "num" }, match.tournamentId),
    el("td", {}, match.game), el("td", {}, seats), el("td", { class: "num" }, match.moves),
    el("td", {}, match.live ? el("span", { class: "live" }, "live ") : "",
       el("a", { href: `/match.html?id=${match.id}` }, "replay")));
}

async function main() {
  const form = document.getElementById("filter");
  for (const name of ["game", "bot", "tournament"]) form.elements[name].value = param(name);
  const query = new URLSearchParams();
  for (const name of ["game", "bot", "tournament"]) if (param(name)) query.set(name, param(name));
  const matches = await getJson(`/api/matches?${query}`);
  document.querySelector("#matches tbody").replaceChildren(...matches.matches.map(matchRow));
}
main().catch(showError);
