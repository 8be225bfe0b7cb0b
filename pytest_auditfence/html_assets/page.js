// auditfence evidence page: selecting a claim (click, Enter or Space) shows its chain and marks its nodes.
(function () {
  "use strict";
  function select(claim) {
    var section = claim.closest("section.test");
    if (!section) { return; }
    section.querySelectorAll(".claim[aria-pressed='true']").forEach(function (el) {
      el.setAttribute("aria-pressed", "false");
    });
    section.querySelectorAll(".chain").forEach(function (el) { el.hidden = true; });
    claim.setAttribute("aria-pressed", "true");
    var panel = document.getElementById(claim.getAttribute("aria-controls"));
    var hint = section.querySelector(".chain-panel .hint");
    if (hint) { hint.hidden = true; }
    var onChain = {};
    if (panel) {
      panel.hidden = false;
      panel.querySelectorAll("[data-node]").forEach(function (el) { onChain[el.getAttribute("data-node")] = true; });
      // on a small screen the panel may sit below the report: bring its start into view
      if (panel.scrollIntoView) { panel.scrollIntoView({block: "nearest"}); }
    }
    section.querySelectorAll(".tnode").forEach(function (node) {
      node.classList.toggle("on-chain", onChain[node.getAttribute("data-node")] === true);
    });
  }
  document.addEventListener("click", function (event) {
    var closest = event.target.closest ? event.target.closest.bind(event.target) : null;
    // A failing-claims list entry or a topology label: select the claim it names and show it in its box.
    var link = closest ? closest("[data-select]") : null;
    if (link) {
      var target = document.getElementById(link.getAttribute("data-select"));
      if (target) {
        event.preventDefault();
        select(target);
        if (target.scrollIntoView) { target.scrollIntoView({block: "center"}); }
        target.focus({preventScroll: true});
        return;
      }
    }
    var claim = closest ? closest(".claim") : null;
    if (claim) { select(claim); }
  });
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if ((event.key === "Enter" || event.key === " ") && target.classList && target.classList.contains("claim")) {
      event.preventDefault();
      select(target);
    }
  });
}());
