import json
from pathlib import Path


def load_output(context_path):
    ctx = json.loads(Path(context_path).read_text())
    return json.loads((Path(ctx["project_root"]) / "output.json").read_text())
