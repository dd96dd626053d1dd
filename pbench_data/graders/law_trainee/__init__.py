"""Python rule graders for the law trainee episode (Ellis Marchetti, Thorne Ravenscroft LLP)."""
