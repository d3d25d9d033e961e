// The traces Bench draws: bar (compare, leaderboards, TRIM) and scatter (consistency, value,
// price history; scatter is part of the core). No regl/WebGL trace: with 2,000 points a
// series, SVG is light enough, and regl would need a function constructor, which the CSP
// forbids.
var Plotly = require("plotly.js/lib/core");

Plotly.register([require("plotly.js/lib/bar")]);

module.exports = Plotly;
