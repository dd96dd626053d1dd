"""Writes the monitoring thresholds (JSON, with a per-server override) and last week's server metrics (csv, 12 servers)."""

import json

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv, write_text

OUT = workspace_folder(__file__)

THRESHOLDS = {
    "defaults": {"cpu_p95_pct": 85, "disk_used_pct": 80, "memory_p95_pct": 90},
    "overrides": {"db-02": {"disk_used_pct": 90}, "build-01": {"cpu_p95_pct": 95}},
    "note": "A server is flagged when a metric is above its threshold (equal is fine). Overrides replace the default for that server only.",
}

METRICS = [
    ["server", "cpu_p95_pct", "disk_used_pct", "memory_p95_pct"],
    ["app-01", 72, 64, 81],
    ["app-02", 88, 70, 79],
    ["app-03", 85, 81, 88],
    ["db-01", 61, 79, 93],
    ["db-02", 58, 87, 84],
    ["build-01", 93, 55, 72],
    ["build-02", 91, 48, 70],
    ["cache-01", 40, 22, 90],
    ["files-01", 35, 92, 45],
    ["mail-01", 50, 80, 66],
    ["web-01", 79, 66, 74],
    ["web-02", 86, 67, 91],
]

write_text(OUT / "monitoring" / "thresholds.json", json.dumps(THRESHOLDS, indent=2) + "\n")
write_csv(OUT / "monitoring" / "metrics_week_47.csv", METRICS)
