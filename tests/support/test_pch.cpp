// tests/support/test_pch.cpp — carries the precompiled header shared by the test executables.
