/// Virtual-time scheduler for tests.
