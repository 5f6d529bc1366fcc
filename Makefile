# Convenience wrappers around scripts/dev.sh (the README's commands).
.PHONY: demo test setup lint
demo:
	bash scripts/dev.sh demo
test:
	bash scripts/dev.sh test
setup:
	bash scripts/dev.sh setup
lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/mypy
