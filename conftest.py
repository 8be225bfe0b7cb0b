"""Root conftest: enables pytester for the plugin's integration tests."""

pytest_plugins = ["pytester"]
