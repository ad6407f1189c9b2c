/// LiveState HTTP service.
