"""The Dagster layer: partitions, resources, assets, sensors (thin: the work is elsewhere)."""
