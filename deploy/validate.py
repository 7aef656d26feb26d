#!/usr/bin/env python3
"""Validates the manifests in deploy/ against Agones' own schema.

    python3 deploy/validate.py AGONES_INSTALL_YAML

AGONES_INSTALL_YAML is the install.yaml of the Agones release the cluster
runs (install/yaml/install.yaml in Agones' repository, or the release's
asset of that name); its CustomResourceDefinitions hold the schema of a
Fleet and a FleetAutoscaler. The check is strict, as `kubectl apply
--validate=strict` is: a field the schema does not name is an error (a
cluster would drop it without a word). Then it checks what Agones' webhook
checks of a Counter autoscaler, and that the manifests agree with each
other and with `host serve`'s arguments. Needs PyYAML and jsonschema.
Prints one line per manifest, and exits 1 naming each problem.
"""

import pathlib
import re
import sys

import jsonschema
import yaml

DEPLOY = pathlib.Path(__file__).resolve().parent


def strict(schema):
    """The CRD's OpenAPI schema as a JSON Schema that refuses unknown
    fields (where the schema does not keep them) and takes null where it
    is nullable."""
    if not isinstance(schema, dict):
        return schema
    kept = schema.get("x-kubernetes-preserve-unknown-fields", False)
    schema = {key: value for key, value in schema.items() if not key.startswith("x-")}
    for key in ("properties",):
        if key in schema:
            schema[key] = {name: strict(value) for name, value in schema[key].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            schema[key] = strict(schema[key])
    for key in ("anyOf", "allOf", "oneOf"):
        if key in schema:
            schema[key] = [strict(value) for value in schema[key]]
    if "properties" in schema and "additionalProperties" not in schema and not kept:
        schema["additionalProperties"] = False
    if schema.pop("nullable", False) and "type" in schema:
        schema["type"] = [schema["type"], "null"]
    return schema


def schemas(install):
    found = {}
    for document in yaml.safe_load_all(install.read_text()):
        if not document or document.get("kind") != "CustomResourceDefinition":
            continue
        spec = document["spec"]
        for version in spec["versions"]:
            key = (f"{spec['group']}/{version['name']}", spec["names"]["kind"])
            schema = strict(version["schema"]["openAPIV3Schema"])
            # Every object has these; the CRD's schema need not name them
            # (metadata is Kubernetes' ObjectMeta, checked by Kubernetes).
            for field in ("apiVersion", "kind", "metadata"):
                schema.setdefault("properties", {}).setdefault(field, {})
            found[key] = schema
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: validate.py AGONES_INSTALL_YAML")
    known = schemas(pathlib.Path(sys.argv[1]))
    problems = []
    manifests = {}
    for path in sorted(DEPLOY.glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if not document:
                continue
            key = (document.get("apiVersion"), document.get("kind"))
            if key not in known:
                problems.append(f"{path.name}: no schema for {key[1]} ({key[0]})")
                continue
            errors = sorted(
                jsonschema.Draft7Validator(known[key]).iter_errors(document),
                key=lambda error: list(error.path),
            )
            for error in errors:
                where = ".".join(str(part) for part in error.path) or "(top)"
                problems.append(f"{path.name}: {where}: {error.message}")
            manifests[key[1]] = (path.name, document)
            print(f"{path.name}: {key[1]} ({key[0]}): {len(errors)} schema errors")
    fleet = manifests.get("Fleet", (None, {}))[1].get("spec", {})
    scaler = manifests.get("FleetAutoscaler", (None, {}))[1].get("spec", {})
    counters = fleet.get("template", {}).get("spec", {}).get("counters") or {}
    policy = scaler.get("policy", {})
    if policy.get("type") == "Counter":
        counter = policy.get("counter") or {}
        key, buffer = counter.get("key"), counter.get("bufferSize", 0)
        low, high = counter.get("minCapacity", 0), counter.get("maxCapacity", 0)
        if key not in counters:
            problems.append(f"autoscaler: the Counter `{key}` is not the Fleet's ({sorted(counters)})")
        if isinstance(buffer, int) and (buffer <= 0 or high < buffer or (low and low < buffer)):
            problems.append(f"autoscaler: bufferSize {buffer} must be above 0 and within minCapacity..maxCapacity")
        percent = re.fullmatch(r"(\d+)%", buffer) if isinstance(buffer, str) else None
        if isinstance(buffer, str) and (percent is None or not 1 <= int(percent.group(1)) <= 99):
            problems.append(f"autoscaler: bufferSize {buffer!r} must be from 1% to 99%")
        if isinstance(buffer, str) and low < 1:
            problems.append("autoscaler: a bufferSize in percent needs a minCapacity of 1 or more")
        if low > high:
            problems.append(f"autoscaler: minCapacity {low} above maxCapacity {high}")
    if scaler.get("fleetName") != manifests.get("Fleet", (None, {}))[1].get("metadata", {}).get("name"):
        problems.append("autoscaler: fleetName is not the Fleet's name")
    for priority in fleet.get("priorities") or []:
        if priority.get("type") == "Counter" and priority.get("key") not in counters:
            problems.append(f"fleet: priorities name the Counter `{priority.get('key')}`, "
                            f"which the Fleet does not declare ({sorted(counters)})")
    containers = (fleet.get("template", {}).get("spec", {}).get("template", {})
                  .get("spec", {}).get("containers", []))
    args = " ".join(arg for container in containers for arg in container.get("args", []))
    most = re.search(r"--max-worlds[= ](\d+)", args)
    worlds = counters.get("worlds", {}).get("capacity")
    if most is None or worlds != int(most.group(1)):
        problems.append(f"fleet: counters.worlds.capacity {worlds} is not --max-worlds "
                        f"({most.group(1) if most else 'not given'})")
    ports = fleet.get("template", {}).get("spec", {}).get("ports", [])
    listen = re.search(r"--listen[= ][^ ]*:(\d+)", args)
    control = [port for port in ports if port.get("name") == "control"]
    if not control or listen is None or control[0].get("containerPort") != int(listen.group(1)):
        problems.append("fleet: the port named `control` is not the port --listen gives")
    for problem in problems:
        print(f"error: {problem}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
