"""Python graders for the financier (model validation) episode."""
