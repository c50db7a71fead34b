# Runs each GoogleTest case as its own lit test.
import lit.formats

config.name = "tmc-unit"
config.test_format = lit.formats.GoogleTest(".", "Tests")
config.test_source_root = config.unit_test_dir
config.test_exec_root = config.unit_test_dir
