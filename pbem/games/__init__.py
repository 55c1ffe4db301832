"""Game modules: rules as code, each citing its rule numbers; components as data in scenarios/."""
