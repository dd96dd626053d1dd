"""Python graders for the marketer episode (Noor Castellanos, Oakline Drinkware)."""
