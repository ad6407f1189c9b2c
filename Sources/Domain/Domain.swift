/// LiveState domain: models, embedded data, view models.
