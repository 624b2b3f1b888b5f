"""The GitLab CI child pipeline of make test, from the plan
(plan.make_plan()): one job per gate job and per suite job, all started
at once but the cross job (it reads the build jobs' native.json) and the
suite jobs that run on the gate's passes (plan.AFTER_GATE), then a merge
job that holds their results to the plan and prints one report of
the whole make test.  Every job runs ci/pipeline-job.sh."""

import base64
import gzip
import json

# What a job's GitLab cache carries, under its SYSDEV_CACHE
# (ci/gitlab-local.sh keeps the same between its jobs).
CACHED = ["ccache", "gate-cache", "verdicts", "docs-cache", "tools"]


def gitlab_pipeline(plan):
    """The child pipeline as JSON (which YAML includes)."""
    def job(kind, name, args, needs=(), cached=CACHED):
        return {
            "stage": "jobs",
            "image": "debian:12",
            "timeout": "3h",
            "needs": list(needs),
            "variables": {"SYSDEV_CACHE": "$CI_PROJECT_DIR/.sysdev-cache",
                          "SYSDEV_KPKG": plan["kpkg"]},
            # one cache per job, carried from pipeline to pipeline: its
            # ccache, the gate's passes, the suite's verdicts and the docs
            # build's warnings (keyed as in make test), the tools
            # pipeline_schema installs with npm; no two jobs write the
            # same cache
            "cache": {"key": "sysdev-%s" % name,
                      "paths": [".sysdev-cache/" + d for d in cached]},
            "script": ["bash ci/pipeline-job.sh %s %s %s" % (kind, name, " ".join(args))],
            "artifacts": {"when": "always", "paths": ["job-logs/" + name]},
        }

    jobs = {"stages": ["jobs", "merge"]}
    builds = []
    for j in plan["gate_jobs"]:
        args = ["--checks", ",".join(j["checks"])]
        # the cross job's configurations even when there is none (","):
        # they are in its cells' keys, as in the serial run's
        if j["configs"] or j["name"] == "cross":
            args += ["--configs", ",".join(j["configs"]) or ","]
        if plan.get("only"):
            args += ["--only", ",".join(map(str, plan["only"]))]
        needs = []
        if j["name"] == "cross":
            needs = [{"job": b, "artifacts": True} for b in builds]
            args += ["--native-from"] + ["job-logs/%s/native.json" % b for b in builds]
        elif j["name"].startswith("build-"):
            builds.append(j["name"])
        jobs[j["name"]] = job("gate", j["name"], args, needs)
    gate = [j["name"] for j in plan["gate_jobs"]]
    for j in plan["suite_jobs"]:
        if j.get("after_gate"):
            # its gate cache is what the gate jobs hand on, each pipeline
            # afresh: not a cache of its own, which would only grow
            jobs[j["name"]] = job("suite", j["name"], ["--gate-passes", ",".join(gate)] + j["tests"],
                                  [{"job": g, "artifacts": True} for g in gate],
                                  [c for c in CACHED if c != "gate-cache"])
        else:
            jobs[j["name"]] = job("suite", j["name"], j["tests"])
    names = [n for n in jobs if n != "stages"]
    packed = base64.b64encode(gzip.compress(json.dumps(plan).encode(), mtime=0)).decode()
    jobs["merge"] = {
        "stage": "merge",
        "image": "debian:12",
        "when": "always",
        "needs": [{"job": n, "artifacts": True} for n in names],
        "script": ["echo %s | base64 -d | gunzip > plan.json" % packed,
                   "bash ci/pipeline-job.sh merge merge job-logs/*"],
        "artifacts": {"when": "always", "paths": ["make-test-report"]},
    }
    return json.dumps(jobs, indent=1)
