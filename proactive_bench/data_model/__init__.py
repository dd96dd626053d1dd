"""data_model."""
