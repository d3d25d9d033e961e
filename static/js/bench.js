// Bench's one script: draws every chart from its data-figure attribute (figures are built
// by results/charts.py), after a page load and after every htmx swap; sorts tables whose
// header cells are marked data-sort; keeps the picker listboxes usable from the keyboard.
// Nothing here is evaluated from strings, so it runs under the site's strict CSP.
(function () {
  "use strict";
  var config = { displayModeBar: false, responsive: true };

  // On a narrow screen the names of a horizontal bar chart (a ranking's drives) would take
  // the whole width, or be cut at the left edge: each is shortened in its middle to fit half
  // the chart, keeping its end after the last " · " (the data pattern) when the bars differ
  // in it and it leaves room for the name; the bars keep their full names (hover, and the
  // table beside the chart).
  var CHAR_PX = 6.2;  // an average character of the tick labels at 11px

  function shortenNames(el, figure) {
    var bars = figure.data.filter(function (t) { return t.type === "bar" && t.orientation === "h"; });
    if (!bars.length || el.clientWidth >= 640) return;
    var room = Math.max(12, Math.floor(el.clientWidth * 0.5 / CHAR_PX));
    var names = [];
    bars.forEach(function (t) {
      t.y.forEach(function (name) { if (names.indexOf(name) < 0) names.push(name); });
    });
    function tail(name) {
      var cut = name.lastIndexOf(" · ");
      return cut > 0 ? name.slice(cut) : "";
    }
    // The same end on every bar (one data pattern chosen) tells nothing: it goes first.
    var ends = names.map(tail);
    var shared = ends.every(function (end) { return end && end === ends[0]; });
    var shown = names.map(function (name) {
      var end = tail(name);
      if (name.length <= room) return name;
      if (shared) name = name.slice(0, name.length - end.length);
      if (name.length <= room) return name;
      var kept = !shared && end.length <= room * 0.6 ? end : "";
      return name.slice(0, room - kept.length - 1).trimEnd() + "…" + kept;
    });
    var axis = figure.layout.yaxis || (figure.layout.yaxis = {});
    axis.tickmode = "array";
    axis.tickvals = names;
    axis.ticktext = shown;
    axis.tickfont = Object.assign({}, axis.tickfont, { size: 11 });
  }

  // On a narrow screen a legend's entry or the x-axis title longer than the chart has room
  // for would be cut at its edge: each is broken into lines at its spaces (Plotly writes
  // "<br>" as a line break), so it shows whole. An entry may take the chart's width; the
  // title, centred on the plot, half of it (the plot may be the right half, beside names).
  var TEXT_PX = 7.4;  // an average character of the charts' 13px text

  function wrap(text, room) {
    var lines = [], line = "";
    text.split(" ").forEach(function (word) {
      if (line && (line + " " + word).length > room) {
        lines.push(line);
        line = word;
      } else {
        line = line ? line + " " + word : word;
      }
    });
    if (line) lines.push(line);
    return lines.join("<br>");
  }

  function fitNarrow(el, figure) {
    var width = el.clientWidth;
    if (!width || width >= 640) return;
    var entry = Math.max(16, Math.floor((width - 60) / TEXT_PX));
    figure.data.forEach(function (t) {
      if (t.name && t.name.length > entry && t.name.indexOf("<br>") < 0) t.name = wrap(t.name, entry);
    });
    var axis = figure.layout.xaxis, title = axis && axis.title;
    var text = title && (typeof title === "string" ? title : title.text);
    var room = Math.max(16, Math.floor(width * 0.5 / TEXT_PX));
    if (text && text.length > room && text.indexOf("<br>") < 0) {
      axis.title = Object.assign({}, typeof title === "string" ? {} : title, { text: wrap(text, room) });
      axis.automargin = true;
    }
  }

  function draw(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("[data-figure]").forEach(function (el) {
      if (el.dataset.drawn) return;
      var figure = JSON.parse(el.dataset.figure);
      el.dataset.drawn = "1";
      shortenNames(el, figure);
      fitNarrow(el, figure);
      window.Plotly.newPlot(el, figure.data, figure.layout, config);
    });
  }

  // A cell's value to sort by: its number, its text, or null when it has none ("" or "—"),
  // which sorts last in either direction.
  function cellValue(row, index) {
    var cell = row.cells[index];
    var raw = cell ? (cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent) : "";
    var text = raw.trim();
    if (text === "" || text === "—") return null;
    var number = parseFloat(text.replace(/[$,%\s]/g, ""));
    return isNaN(number) ? text.toLowerCase() : number;
  }

  function sortBy(th) {
    var table = th.closest("table");
    var body = table.tBodies[0];
    var index = Array.prototype.indexOf.call(th.parentNode.cells, th);
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th[data-sort]").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index), y = cellValue(b, index);
      if (x === null || y === null) return (x === null) - (y === null);
      var order = x < y ? -1 : x > y ? 1 : 0;
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }

  document.addEventListener("click", function (event) {
    var th = event.target.closest("th[data-sort] button");
    if (th) sortBy(th.closest("th"));
  });

  // Arrow keys move between a picker's input and its options; Escape closes the list.
  document.addEventListener("keydown", function (event) {
    var input = event.target.closest(".picker input");
    var option = event.target.closest(".option-list a");
    var picker = (input || option) && (input || option).closest(".picker");
    if (!picker) return;
    var links = Array.prototype.slice.call(picker.querySelectorAll(".option-list a"));
    var at = links.indexOf(document.activeElement);
    if (event.key === "ArrowDown" && links.length) {
      links[Math.min(at + 1, links.length - 1)].focus();
      event.preventDefault();
    } else if (event.key === "ArrowUp" && option) {
      (at > 0 ? links[at - 1] : picker.querySelector("input")).focus();
      event.preventDefault();
    } else if (event.key === "Escape") {
      picker.querySelectorAll(".option-list").forEach(function (list) { list.remove(); });
      picker.querySelector("input").focus();
      expanded(picker);
    }
  });

  // htmx sends nothing when a field fails the browser's own checks (a capacity below 0):
  // the browser says what is wrong beside the field, as it would for a submitted form.
  document.addEventListener("htmx:validation:halted", function (event) {
    var form = event.detail.elt.closest("form");
    if (form) form.reportValidity();
  });

  // A picker's box says whether its list of matches is open (aria-expanded).
  function expanded(root) {
    root.querySelectorAll(".picker input[aria-controls]").forEach(function (input) {
      var options = document.getElementById(input.getAttribute("aria-controls"));
      var open = !!(options && options.querySelector(".option-list"));
      input.setAttribute("aria-expanded", open ? "true" : "false");
    });
  }

  document.addEventListener("DOMContentLoaded", function () { draw(document); });
  document.addEventListener("htmx:afterSettle", function (event) {
    draw(event.target);
    expanded(document);
  });
  // Back and forward: htmx keeps no copy of the page (historyCacheSize 0 in base.html: a copy
  // holds drawn charts as markup, dead and styled inline, which the CSP refuses), so it asks
  // the server for the whole page again and swaps it in.
  document.addEventListener("htmx:historyRestore", function () { draw(document); });
})();
