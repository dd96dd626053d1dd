"""Writes inbox/ps3_marked.pdf (a tutor-marked problem set) and inbox/ps4_questions.pdf (the next one); all invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder

MARKED = [
    "ENGR 101 Problem set 3 - Kwame Asante - marked",
    "",
    "Q1: 12.0 m/s   [ok]",
    "Q2: 4.91 s   [ok]",
    "Q3: 0.2548 m   [-1: answers to 3 significant figures, as always]",
    "Q4: 3.53 kJ   [ok]",
    "",
    "Tutor: one line per answer, 'Q<n>: value unit'. 3 significant figures, SI units. 9/10.",
]
QUESTIONS = [
    "ENGR 101 Problem set 4 (take g = 9.81 m/s^2)",
    "",
    "Q1. A cart starts from rest and accelerates at 2.5 m/s^2 for 7 s. How far does it travel?",
    "Q2. What is the cart's speed at the end of those 7 s?",
    "Q3. A ball is dropped from rest from a height of 12 m. How long does it take to reach the ground?",
    "Q4. What is the kinetic energy of a 0.45 kg ball moving at 17.5 m/s?",
]

inbox = workspace_folder(__file__) / "inbox"
for name, lines in (("ps3_marked.pdf", MARKED), ("ps4_questions.pdf", QUESTIONS)):
    with pdf_file(inbox / name) as pdf:
        pdf.write_lines(lines, 7, wrap=True)
