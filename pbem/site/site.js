// pbem site: step through the states. Keys: left and right arrows (also j and k, PageUp and
// PageDown), Home and End; the slider; the page's address names the state shown (#s0012).
(function () {
  "use strict";
  var root = document.documentElement;
  var states = Array.prototype.slice.call(document.querySelectorAll("section.state"));
  if (!states.length) { return; }
  root.classList.add("js");
  var slider = document.getElementById("slider");
  var prev = document.getElementById("prev");
  var next = document.getElementById("next");
  var where = document.getElementById("where");
  var current = -1;

  function indexOfHash() {
    var id = window.location.hash.slice(1);
    for (var i = 0; i < states.length; i++) { if (states[i].id === id) { return i; } }
    return -1;
  }

  function show(i, record) {
    i = Math.max(0, Math.min(states.length - 1, i));
    if (i === current) { return; }
    if (current >= 0) { states[current].classList.remove("current"); }
    current = i;
    var s = states[i];
    s.classList.add("current");
    slider.value = String(i);
    prev.disabled = i === 0;
    next.disabled = i === states.length - 1;
    where.textContent = "state " + s.id.slice(1) + " (" + (i + 1) + " of " + states.length + "): " + s.getAttribute("data-title");
    if (record && window.location.hash !== "#" + s.id) {
      try { window.history.replaceState(null, "", "#" + s.id); } catch (err) { /* an address the browser will not change */ }
    }
  }

  slider.addEventListener("input", function () { show(parseInt(slider.value, 10), true); });
  prev.addEventListener("click", function () { show(current - 1, true); });
  next.addEventListener("click", function () { show(current + 1, true); });
  window.addEventListener("hashchange", function () { var i = indexOfHash(); if (i >= 0) { show(i, false); } });
  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) { return; }
    var t = ev.target;
    if (t === slider) { return; }  // the slider moves itself
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable)) { return; }
    var to = null;
    switch (ev.key) {
      case "ArrowLeft": case "PageUp": case "k": to = current - 1; break;
      case "ArrowRight": case "PageDown": case "j": to = current + 1; break;
      case "Home": to = 0; break;
      case "End": to = states.length - 1; break;
      default: return;
    }
    ev.preventDefault();
    show(to, true);
  });
  var start = indexOfHash();
  show(start >= 0 ? start : 0, false);
  if (start >= 0) {  // the state is shown under the stepper: the browser's own jump to the address is undone
    window.scrollTo(0, 0);
    window.addEventListener("load", function () { window.scrollTo(0, 0); });
  }
}());
