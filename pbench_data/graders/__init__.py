"""Rule graders referenced from checklist items as graders.<persona>.<module>:<function>."""
