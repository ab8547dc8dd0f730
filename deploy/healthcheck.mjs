/* global fetch */
// The image's HEALTHCHECK: exits 0 when this container's server answers GET /health with 200, on
// the probe port when there is one (HEDDLE_PROBE_PORT, 8081 in the image), else on the API port.
// Node is the only program in the image, so the check is a Node script rather than curl.
const port = process.env.HEDDLE_PROBE_PORT || process.env.HEDDLE_PORT || '8080';
const timer = setTimeout(() => process.exit(1), 2500);
fetch(`http://127.0.0.1:${port}/health`).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
timer.unref();
