#!/usr/bin/env python3
"""Check that a `helm template` render of the fleetdesk chart hangs together.

Usage: check-helm-render.py RENDERED.yaml

Schema validity is kubernetes-validate's job; this checks what a schema can't:
each Deployment runs `fleetdesk <component>` with the right ports, probes,
environment and locked-down security context; every Service, HPA, PDB and
NetworkPolicy points at a Deployment that exists, by labels and port names
that exist; no gRPC port is on a Service reachable from outside the cluster,
and telematics' gRPC lets in only the gateway; the ConfigMap's service URLs
name rendered Services and their gRPC ports; the migrations Job is a
pre-install/pre-upgrade hook running `fleetdesk migrate`.
Prints a one-line summary, or the problems and exits 1.
"""

from __future__ import annotations

import sys
from collections import Counter

import yaml

SERVICES = ("auth", "org", "vehicle", "energy", "finance")
# Telematics' ports: terminals' (JT/T 808, live and playback video, alarm
# evidence) and the gateway's (MediaService).
TELEMATICS_PORTS = {"jt808": 8808, "grpc": 50051, "media": 1078, "playback": 1079,
                    "attachment": 7611}
TERMINAL_PORTS = {"jt808", "media", "playback", "attachment"}
COMPONENT = "app.kubernetes.io/component"

problems: list[str] = []


def problem(obj: dict, msg: str) -> None:
    problems.append(f"{obj['kind']}/{obj['metadata']['name']}: {msg}")


def matches(selector: dict, labels: dict) -> bool:
    """matchLabels/matchExpressions (In, NotIn, Exists, DoesNotExist) against labels."""
    for k, v in (selector.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in selector.get("matchExpressions") or []:
        key, op, vals = e["key"], e["operator"], e.get("values") or []
        if op == "In" and labels.get(key) not in vals:
            return False
        if op == "NotIn" and labels.get(key) in vals:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def env_names(container: dict) -> set[str]:
    return {e["name"] for e in container.get("env") or []}


def check_security(obj: dict, pod: dict) -> None:
    psc = pod.get("securityContext") or {}
    if psc.get("runAsNonRoot") is not True:
        problem(obj, "pod securityContext.runAsNonRoot is not true")
    for c in pod["containers"]:
        sc = c.get("securityContext") or {}
        if sc.get("readOnlyRootFilesystem") is not True:
            problem(obj, f"container {c['name']}: readOnlyRootFilesystem is not true")
        if sc.get("allowPrivilegeEscalation") is not False:
            problem(obj, f"container {c['name']}: allowPrivilegeEscalation is not false")
        if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
            problem(obj, f"container {c['name']}: capabilities do not drop ALL")
        if not (c.get("resources") or {}).get("requests"):
            problem(obj, f"container {c['name']}: no resource requests")


def check_deployment(d: dict, config: dict) -> None:
    spec, pod = d["spec"], d["spec"]["template"]["spec"]
    labels = d["spec"]["template"]["metadata"].get("labels") or {}
    component = labels.get(COMPONENT)
    if not matches(spec["selector"], labels):
        problem(d, "selector does not match its pod labels")
    check_security(d, pod)
    c = pod["containers"][0]
    if c.get("args") != [component]:
        problem(d, f"args {c.get('args')} are not [{component!r}]")
    ports = {p["name"]: p["containerPort"] for p in c.get("ports") or []}
    env = env_names(c)
    live, ready = c.get("livenessProbe") or {}, c.get("readinessProbe") or {}
    if component == "gateway":
        if ports != {"http": 8080}:
            problem(d, f"ports {ports} are not http:8080")
        if (live.get("httpGet") or {}).get("path") != "/healthz":
            problem(d, "liveness probe is not GET /healthz")
        if (ready.get("httpGet") or {}).get("path") != "/readyz":
            problem(d, "readiness probe is not GET /readyz")
        need = {"FLEETDESK_HTTP_ADDR", "FLEETDESK_CONSOLE_DIR", "FLEETDESK_INTERNAL_SIGNING_KEY"}
    elif component in SERVICES:
        # Energy may also serve OCPI to the charging platform on a port of its own.
        ocpi = ports.pop("ocpi", None) if component == "energy" else None
        if ports != {"grpc": 50051}:
            problem(d, f"ports {ports} are not grpc:50051")
        if (live.get("grpc") or {}).get("port") != 50051 or live["grpc"].get("service", "") != "":
            problem(d, "liveness probe is not gRPC health of service '' on 50051")
        if (ready.get("grpc") or {}).get("port") != 50051:
            problem(d, "readiness probe is not gRPC health on 50051")
        need = {"FLEETDESK_GRPC_ADDR", "DATABASE_URL", "FLEETDESK_INTERNAL_SIGNING_KEY"}
        if ocpi is not None:
            need |= {"FLEETDESK_OCPI_ADDR", "FLEETDESK_OCPI_PUBLIC_URL", "FLEETDESK_OCPI_TOKEN_A"}
    elif component == "telematics":
        if ports != TELEMATICS_PORTS:
            problem(d, f"ports {ports} are not {TELEMATICS_PORTS}")
        for name, probe in (("liveness", live), ("readiness", ready)):
            if (probe.get("tcpSocket") or {}).get("port") != 8808:
                problem(d, f"{name} probe is not a TCP connect on 8808")
        need = {"FLEETDESK_JT808_ADDR", "FLEETDESK_GRPC_ADDR", "FLEETDESK_MEDIA_ADDR",
                "FLEETDESK_MEDIA_PLAYBACK_ADDR", "FLEETDESK_ATTACHMENT_ADDR",
                "FLEETDESK_INTERNAL_SIGNING_KEY"}
        # Each listens where its container port says.
        values = {e["name"]: e.get("value") for e in c.get("env") or []}
        for var, port in (("FLEETDESK_GRPC_ADDR", "grpc"), ("FLEETDESK_MEDIA_ADDR", "media"),
                          ("FLEETDESK_MEDIA_PLAYBACK_ADDR", "playback"),
                          ("FLEETDESK_ATTACHMENT_ADDR", "attachment")):
            if var in values and values[var] != f"0.0.0.0:{TELEMATICS_PORTS[port]}":
                problem(d, f"{var}={values[var]} is not port {port}")
    else:
        problem(d, f"unknown component {component!r}")
        return
    for missing in sorted(need - env):
        problem(d, f"no {missing} in env")
    refs = [s["configMapRef"]["name"] for s in c.get("envFrom") or [] if "configMapRef" in s]
    for ref in refs:
        if ref not in config:
            problem(d, f"envFrom names ConfigMap {ref}, which is not rendered")
    if not refs:
        problem(d, "no envFrom ConfigMap")
    mounts = {m["name"] for m in c.get("volumeMounts") or []}
    volumes = {v["name"] for v in pod.get("volumes") or []}
    for m in sorted(mounts - volumes):
        problem(d, f"volumeMount {m} has no volume")


def main(path: str) -> int:
    with open(path) as f:
        objs = [o for o in yaml.safe_load_all(f) if o]
    kinds = Counter(o["kind"] for o in objs)
    for (kind, name), n in Counter((o["kind"], o["metadata"]["name"]) for o in objs).items():
        if n > 1:
            problems.append(f"{kind}/{name}: rendered {n} times")

    by_kind: dict[str, dict[str, dict]] = {}
    for o in objs:
        by_kind.setdefault(o["kind"], {})[o["metadata"]["name"]] = o
    deployments = by_kind.get("Deployment", {})
    services = by_kind.get("Service", {})
    configmaps = by_kind.get("ConfigMap", {})

    def pods_matching(selector: dict) -> list[dict]:
        return [d for d in deployments.values()
                if matches(selector, d["spec"]["template"]["metadata"].get("labels") or {})]

    def port_names(d: dict) -> set[str]:
        return {p["name"] for c in d["spec"]["template"]["spec"]["containers"]
                for p in c.get("ports") or []}

    for d in deployments.values():
        check_deployment(d, configmaps)

    for s in services.values():
        targets = pods_matching({"matchLabels": s["spec"].get("selector") or {}})
        if len(targets) != 1:
            problem(s, f"selects {len(targets)} Deployments, not 1")
            continue
        for p in s["spec"]["ports"]:
            if p["targetPort"] not in port_names(targets[0]):
                problem(s, f"targetPort {p['targetPort']} is no port of {targets[0]['metadata']['name']}")
            # gRPC is for the cluster: a LoadBalancer or NodePort would hand it to anyone.
            if p["targetPort"] == "grpc" and s["spec"].get("type", "ClusterIP") != "ClusterIP":
                problem(s, f"exposes gRPC on a {s['spec']['type']} Service")

    for kind in ("HorizontalPodAutoscaler",):
        for h in by_kind.get(kind, {}).values():
            target = h["spec"]["scaleTargetRef"]["name"]
            if target not in deployments:
                problem(h, f"scales {target}, which is not rendered")
            elif "replicas" in deployments[target]["spec"]:
                problem(h, f"Deployment {target} also sets replicas")

    for p in by_kind.get("PodDisruptionBudget", {}).values():
        if len(pods_matching(p["spec"]["selector"])) != 1:
            problem(p, "does not select exactly one Deployment")

    for n in by_kind.get("NetworkPolicy", {}).values():
        targets = pods_matching(n["spec"]["podSelector"])
        if len(targets) != 1:
            problem(n, f"selects {len(targets)} Deployments, not 1")
            continue
        component = targets[0]["spec"]["template"]["metadata"]["labels"][COMPONENT]
        for rule in n["spec"].get("ingress") or []:
            for port in rule.get("ports") or []:
                if port["port"] not in port_names(targets[0]):
                    problem(n, f"allows port {port['port']}, which {component} does not have")
            # The gRPC port lets in exactly the gateway and services (OCPI's is the platform's).
            grpc = any(port["port"] == "grpc" for port in rule.get("ports") or [])
            if component in SERVICES and grpc:
                peers = [pods_matching(peer["podSelector"]) for peer in rule.get("from") or []
                         if "podSelector" in peer and "namespaceSelector" not in peer]
                allowed = {d["spec"]["template"]["metadata"]["labels"][COMPONENT]
                           for ds in peers for d in ds}
                expected = {d["spec"]["template"]["metadata"]["labels"][COMPONENT]
                            for d in deployments.values()}
                if allowed != expected:
                    problem(n, f"lets in {sorted(allowed)}, not the gateway and services {sorted(expected)}")
            # Telematics' gRPC (MediaService) is the gateway's alone; its terminal
            # ports are never opened to the pods' gRPC peers by the same rule.
            if component == "telematics" and grpc:
                peers = rule.get("from") or []
                if not peers:
                    problem(n, "lets everyone in to telematics' gRPC port")
                allowed = {d["spec"]["template"]["metadata"]["labels"][COMPONENT]
                           for peer in peers
                           if "podSelector" in peer and "namespaceSelector" not in peer
                           for d in pods_matching(peer["podSelector"])}
                gateway = {d["spec"]["template"]["metadata"]["labels"][COMPONENT]
                           for d in deployments.values()} & {"gateway"}
                if allowed != gateway:
                    problem(n, f"lets in {sorted(allowed)} to telematics' gRPC, not the gateway")
                if any(port["port"] in TERMINAL_PORTS for port in rule["ports"]):
                    problem(n, "opens terminal ports with the gRPC port")

    for cm in configmaps.values():
        for key, url in (cm.get("data") or {}).items():
            if not (key.startswith("FLEETDESK_") and key.endswith("_URL")):
                continue
            host_port = url.removeprefix("http://")
            host, _, port = host_port.partition(":")
            svc = services.get(host)
            if svc is None:
                continue  # a component left out; extraEnv may point elsewhere
            targets = {p["port"]: p["targetPort"] for p in svc["spec"]["ports"]}
            if int(port) not in targets:
                problem(cm, f"{key}={url}: Service {host} has no port {port}")
            elif targets[int(port)] != "grpc":
                problem(cm, f"{key}={url}: port {port} of Service {host} is not its gRPC port")

    jobs = list(by_kind.get("Job", {}).values())
    for j in jobs:
        hooks = set((j["metadata"].get("annotations") or {}).get("helm.sh/hook", "").split(","))
        if not {"pre-install", "pre-upgrade"} <= hooks:
            problem(j, "is not a pre-install,pre-upgrade hook")
        pod = j["spec"]["template"]["spec"]
        check_security(j, pod)
        if pod["containers"][0].get("args") != ["migrate"]:
            problem(j, "does not run `fleetdesk migrate`")
        if "DATABASE_URL" not in env_names(pod["containers"][0]):
            problem(j, "has no DATABASE_URL")

    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
