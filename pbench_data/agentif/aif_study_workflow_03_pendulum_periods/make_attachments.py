"""Writes inbox/pendulum_lab.xlsx: a lab group's timings of ten swings per pendulum length, with notes (invented)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_sheet

TRIALS = [  # length (m), trial, time of 10 swings (s), note
    (0.30, 1, 10.98, ""), (0.30, 2, 12.40, "discard - miscounted swings"), (0.30, 3, 11.02, ""), (0.30, 4, 11.00, ""), (0.30, 5, 10.96, ""),
    (0.45, 1, 13.44, ""), (0.45, 2, 13.48, ""), (0.45, 3, 11.90, "discard - stopwatch started late"), (0.45, 4, 13.46, ""), (0.45, 5, 13.46, ""),
    (0.60, 1, 15.52, ""), (0.60, 2, 15.56, ""), (0.60, 3, 15.58, ""), (0.60, 4, 16.90, "discard - counted 11"), (0.60, 5, 15.50, ""),
    (0.75, 1, 15.10, "discard - released with a push"), (0.75, 2, 17.36, ""), (0.75, 3, 17.38, ""), (0.75, 4, 17.40, ""), (0.75, 5, 17.34, ""),
    (0.90, 1, 19.00, "series aborted: clamp slipped, length not reliable"), (0.90, 2, 19.10, ""), (0.90, 3, 18.95, ""),
    (0.90, 4, 19.06, ""), (0.90, 5, 19.02, ""),
]

ROWS = [("length_m", "trial", "time_10_swings_s", "note"), *TRIALS]
write_sheet(workspace_folder(__file__) / "inbox" / "pendulum_lab.xlsx", "Timings", ROWS, creator="Lab group 4")
