"""Rule graders for the pharmacist episode (episodes/pharmacist)."""
