"""Writes inbox/course_outline.pdf (how an invented accounting course is graded) and inbox/my_marks.xlsx (a student's marks so far)."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_sheet

OUTLINE = [
    "ACC 204 Management Accounting - Spring 2025",
    "",
    "Assessment weights",
    "- Quizzes: 15 % (the average of your best four of the five quizzes)",
    "- Midterm exam: 25 %",
    "- Group project: 20 %",
    "- Final exam: 40 %",
    "",
    "Passing rules",
    "- To pass the course you need at least 40 out of 100 on the final exam itself,",
    "  and an overall mark of at least 50.",
    "",
    "Grade bands (overall mark)",
    "- A: 85 and above",
    "- B: 70 to 84.99",
    "- C: 60 to 69.99",
    "- D: 50 to 59.99",
    "- F: below 50, or a final exam mark below 40",
]
MARKS = [("Quiz 1", 72), ("Quiz 2", 55), ("Quiz 3", 90), ("Quiz 4", 81), ("Quiz 5", 64), ("Midterm exam", 68), ("Group project", 80), ("Final exam", None)]

inbox = workspace_folder(__file__) / "inbox"
with pdf_file(inbox / "course_outline.pdf") as pdf:
    pdf.write_lines(OUTLINE, 7)
ROWS = [("assessment", "mark_out_of_100"), *((name, "not sat yet" if mark is None else mark) for name, mark in MARKS)]
write_sheet(inbox / "my_marks.xlsx", "Marks", ROWS)
