"""The GitLab CI child pipeline of the gate."""

import json


def gitlab_pipeline(cells):
    """A GitLab CI child pipeline (YAML, written as JSON, which YAML
    includes): one job per cell, then a merge job that downloads every
    cell's GATE_LOGS (the artifacts of the earlier stage) and writes the
    report.  ci/gitlab-ci.yml generates and triggers it."""
    setup = ["bash scripts/install-deps.sh", "bash scripts/prepare-tree.sh",
             "bash scripts/apply-series.sh"]
    common = {"image": "debian:12",
              "variables": {"SYSDEV_CACHE": "$CI_PROJECT_DIR/.sysdev-cache"},
              "cache": {"key": "sysdev-ccache", "paths": [".sysdev-cache/ccache"]}}
    jobs = {"stages": ["cells", "merge"]}
    for c in cells:
        d = "gate-logs/" + c.replace(":", "_")
        jobs["cell " + c] = dict(common, stage="cells", script=setup + [
            "GATE_LOGS=%s bash ci/gate.sh --no-cache --cell %s" % (d, c)],
            artifacts={"when": "always", "paths": [d]})
    jobs["merge"] = dict(common, stage="merge", when="always", script=[
        "bash ci/gate.sh --merge gate-report gate-logs/*"],
        artifacts={"when": "always", "paths": ["gate-report"]})
    return json.dumps(jobs, indent=1)
