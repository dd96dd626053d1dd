"""Writes inbox/exams.pdf: a student's exam list (invented)."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder

EXAMS = [("Statistics", "2025-06-10"), ("Ecology", "2025-06-12"), ("Chemistry", "2025-06-14")]

with pdf_file(workspace_folder(__file__) / "inbox" / "exams.pdf") as pdf:
    pdf.write_lines(["Summer exam period 2025"], 10, size=12)
    pdf.write_lines([f"{subject} written exam: {day}, 09:00, Hall B" for subject, day in EXAMS], 8, size=12)
