# CLI end-to-end tests: being written
