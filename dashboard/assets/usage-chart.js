// Draws the requests-per-day chart of the usage page with uPlot (served by the dashboard itself);
// the table under it holds the same figures for readers without JavaScript.
(function () {
  const data = document.getElementById('usage-data');
  const target = document.getElementById('chart');
  if (!data || !target || typeof uPlot === 'undefined') return;
  const days = JSON.parse(data.textContent);
  if (days.length === 0) return;
  const x = days.map((d) => Date.parse(d.day + 'T00:00:00Z') / 1000);
  const y = days.map((d) => d.requests);
  // eslint-disable-next-line no-undef
  new uPlot(
    { width: Math.min(target.clientWidth || 800, 900), height: 260, series: [{}, { label: 'Requests', stroke: '#0b6e4f', fill: '#0b6e4f22' }], axes: [{}, { label: 'requests' }] },
    [x, y],
    target,
  );
})();
