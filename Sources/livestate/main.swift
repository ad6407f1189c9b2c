print("livestate: not built yet")
