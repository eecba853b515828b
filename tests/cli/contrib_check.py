#!/usr/bin/env python3
"""contrib_check.py: the checks of contrib/ that need a parser: the Grafana dashboard, the
Prometheus rules, the Kubernetes objects (their agreement with each other, and the
ServiceMonitor's structure, which no Kubernetes schema covers) and a scrape of `gpuvet
serve`, each against contrib/metrics.txt. tests/cli/contrib.sh runs it and turns each line it
prints ("PASS what" or "FAIL what: why") into a result.

usage: contrib_check.py dashboard METRICS DASHBOARD.json
       contrib_check.py rules METRICS RULES.yml KERNEL_LOG.c
       contrib_check.py k8s GPUVET.yaml SERVICEMONITOR.yaml
       contrib_check.py scrape METRICS SCRAPE.txt
       contrib_check.py promql DASHBOARD.json OUT.yml   (the queries, for promtool to parse)
The PromQL reader below is a tokenizer, not a full parser: enough to find every metric name,
label matcher, grouping label and the function around each selector in the expressions we
write, and to fail loudly on anything it does not understand.
"""
import json
import re
import sys

GPU_LABELS = ["gpu", "uuid", "pci_bus_id", "model", "serial"]
DCGM_LABELS = ["gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname",
               "DCGM_FI_DRIVER_VERSION"]
# labels Prometheus adds to every scraped series
TARGET_LABELS = {"instance", "job"}
# PromQL words that are neither metrics nor functions
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and",
            "or", "unless", "offset", "inf", "nan", "atan2"}
GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}
COUNTER_FUNCS = {"rate", "irate", "increase", "resets"}
AGGREGATORS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
               "bottomk", "topk", "quantile", "limitk", "limit_ratio"}

results = []


def result(ok, what, why=""):
    results.append(("PASS " + what) if ok else ("FAIL %s: %s" % (what, why)))


def load_metrics(path):
    """NAME -> (type, set of labels) from contrib/metrics.txt"""
    metrics = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, kind, labels = line.split()
            names = set()
            for lab in labels.split(","):
                if lab == "@gpu":
                    names.update(GPU_LABELS)
                elif lab == "@dcgm":
                    names.update(DCGM_LABELS)
                elif lab != "-":
                    names.add(lab)
            if name in metrics:
                raise SystemExit("contrib_check: %s twice in %s" % (name, path))
            metrics[name] = (kind, names)
    return metrics


TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
  | (?P<var>\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)
  | (?P<duration>[0-9]+(?:ms|[smhdwy])(?:[0-9]+(?:ms|[smhdwy]))*)
  | (?P<number>[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)
  | (?P<ident>[A-Za-z_:][A-Za-z0-9_:]*)
  | (?P<op>=~|!~|!=|==|<=|>=|[-+*/%^<>=,(){}\[\]:@])
""", re.X)


def tokens(expr):
    pos, out = 0, []
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m:
            raise ValueError("cannot read %r" % expr[pos:pos + 20])
        pos = m.end()
        if m.lastgroup != "space":
            out.append((m.lastgroup, m.group()))
    return out


class Expr:
    """what one PromQL expression uses: selectors (metric, matcher labels, enclosing
    function), the matchers themselves (label, op, value), grouping labels"""

    def __init__(self, text):
        self.selectors = []
        self.matchers = []
        self.grouping = set()
        toks = tokens(text)
        stack = []  # the function (or "") of each open parenthesis
        opened = False  # an aggregation's name and grouping read, its parenthesis not yet
        i = 0
        while i < len(toks):
            kind, val = toks[i]
            nxt = toks[i + 1][1] if i + 1 < len(toks) else None
            if kind == "ident" and val in AGGREGATORS and nxt in ("by", "without"):
                stack.append(val)  # sum by (a) (...): the grouping, then its parenthesis
                opened = True
                i += 1
                continue
            if kind == "ident" and val in GROUPING:
                i += 1
                if nxt == "(":
                    i += 1
                    while toks[i][1] != ")":
                        if toks[i][0] == "ident":
                            self.grouping.add(toks[i][1])
                        i += 1
                    i += 1
                if opened:
                    if i >= len(toks) or toks[i][1] != "(":
                        raise ValueError("%s by (...) without its expression" % stack[-1])
                    i += 1  # the aggregation's own parenthesis, already on the stack
                    opened = False
                continue
            if kind == "ident" and val in KEYWORDS:
                i += 1
                continue
            if kind == "ident" and nxt == "(":
                stack.append(val)
                i += 2
                continue
            if kind == "ident" or (kind == "op" and val == "{"):
                name = val if kind == "ident" else None
                labels = set()
                if kind == "ident":
                    i += 1
                if i < len(toks) and toks[i][1] == "{":
                    i += 1
                    while toks[i][1] != "}":
                        lab, op, value = toks[i], toks[i + 1], toks[i + 2]
                        if lab[0] != "ident" or op[1] not in ("=", "!=", "=~", "!~") \
                                or value[0] != "string":
                            raise ValueError("cannot read the matchers of %s" % name)
                        labels.add(lab[1])
                        self.matchers.append((lab[1], op[1], value[1][1:-1]))
                        i += 3
                        if toks[i][1] == ",":
                            i += 1
                    i += 1
                if name is None:
                    raise ValueError("a selector without a metric name")
                self.selectors.append((name, labels, stack[-1] if stack else ""))
                continue
            if val == "(":
                stack.append("")
            elif val == ")":
                stack.pop()
            elif val == "[":  # a range or subquery: durations and variables only
                while toks[i][1] != "]":
                    i += 1
            i += 1
        if stack:
            raise ValueError("unbalanced parentheses")

    def names(self):
        return {s[0] for s in self.selectors}


def check_expr(text, metrics, extra_names=(), where=""):
    """problems (a list of strings) of one expression against metrics.txt"""
    try:
        e = Expr(text)
    except (ValueError, IndexError) as err:
        return ["%s: %s" % (where, err)], None
    problems = []
    known = dict(metrics)
    for n in extra_names:
        known.setdefault(n, ("gauge", None))  # recorded series: labels not checked
    all_labels = set(TARGET_LABELS)
    for name, labels, func in e.selectors:
        if name not in known:
            problems.append("%s: unknown metric %s" % (where, name))
            continue
        kind, allowed = known[name]
        if allowed is not None:
            all_labels |= allowed
            bad = labels - allowed - TARGET_LABELS - {"__name__"}
            if bad:
                problems.append("%s: %s has no label %s" % (where, name, ",".join(sorted(bad))))
        else:
            all_labels |= labels
        if func in COUNTER_FUNCS and kind != "counter":
            problems.append("%s: %s() of %s, a %s" % (where, func, name, kind))
    if not any(known.get(n, (0, None))[1] is None for n in e.names()):
        bad = e.grouping - all_labels
        if bad:
            problems.append("%s: grouping by %s, a label none of its metrics has"
                            % (where, ",".join(sorted(bad))))
    return problems, (e, all_labels)


# ---- the dashboard ---------------------------------------------------------------------------

def all_panels(panels):
    for p in panels:
        yield p
        yield from all_panels(p.get("panels", []))


def check_dashboard(metrics_path, path):
    metrics = load_metrics(metrics_path)
    try:
        with open(path) as f:
            d = json.load(f)
        result(True, "dashboard: the JSON parses")
    except (OSError, ValueError) as err:
        result(False, "dashboard: the JSON parses", str(err))
        return
    result(isinstance(d.get("schemaVersion"), int) and d["schemaVersion"] >= 36
           and d.get("uid") and d.get("title"),
           "dashboard: has a uid, a title and schemaVersion 36 or later",
           "uid %r title %r schemaVersion %r" % (d.get("uid"), d.get("title"), d.get("schemaVersion")))

    variables = {v.get("name"): v for v in d.get("templating", {}).get("list", [])}
    ds = variables.get("datasource", {})
    result(ds.get("type") == "datasource" and ds.get("query") == "prometheus",
           "dashboard: a datasource variable of type prometheus", "templating: %r" % ds)
    uses = ("${datasource}", "$datasource")

    panels = list(all_panels(d.get("panels", [])))
    ids = [p.get("id") for p in panels]
    dup = sorted({i for i in ids if ids.count(i) > 1 or i is None}, key=str)
    result(not dup and panels, "dashboard: %d panels, each with its own id" % len(panels),
           "ids repeated or missing: %s" % dup)

    # the grid: inside 24 columns, no two panels on the same cell
    cells, bad = {}, []
    for p in panels:
        g = p.get("gridPos", {})
        if not all(k in g for k in "hwxy") or g["x"] + g["w"] > 24:
            bad.append("%s: gridPos %r" % (p.get("title"), g))
            continue
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                if (x, y) in cells:
                    bad.append("%s overlaps %s" % (p.get("title"), cells[(x, y)]))
                cells[(x, y)] = p.get("title")
    result(not bad, "dashboard: panels lie on the grid without overlapping", "; ".join(sorted(set(bad))[:5]))

    not_ds, problems, used, no_instance = [], [], set(), []
    for p in panels:
        if p.get("type") == "row":
            continue
        title = p.get("title")
        if (p.get("datasource") or {}).get("uid") not in uses:
            not_ds.append(title)
        if not p.get("targets"):
            problems.append("%s: no query" % title)
        for t in p.get("targets", []):
            if (t.get("datasource") or {}).get("uid") not in uses:
                not_ds.append("%s/%s" % (title, t.get("refId")))
            expr = t.get("expr", "")
            where = "%s/%s" % (title, t.get("refId"))
            probs, info = check_expr(expr, metrics, where=where)
            problems += probs
            if info:
                e, labels = info
                used |= e.names()
                if not any("instance" in s[1] for s in e.selectors):
                    no_instance.append(where)
                for lab in re.findall(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}", t.get("legendFormat", "")):
                    if lab not in labels:
                        problems.append("%s: legend names %s, a label its metrics lack" % (where, lab))
    for name in ("instance", "gpu"):
        v = variables.get(name, {})
        q = v.get("query", {})
        q = q.get("query", "") if isinstance(q, dict) else q
        m = re.fullmatch(r"\s*label_values\((.*),\s*([A-Za-z_][A-Za-z0-9_]*)\)\s*", q or "")
        if not m or (v.get("datasource") or {}).get("uid") not in uses:
            problems.append("variable %s: query %r, datasource %r" % (name, q, v.get("datasource")))
            continue
        probs, info = check_expr(m.group(1), metrics, where="variable " + name)
        problems += probs
        if info and m.group(2) not in info[1]:
            problems.append("variable %s: label %s not on %s" % (name, m.group(2), m.group(1)))
    result(not not_ds, "dashboard: every panel and query uses the datasource variable",
           ", ".join(not_ds[:8]))
    result(not problems, "dashboard: every query uses only metrics and labels of contrib/metrics.txt",
           "; ".join(problems[:8]))
    result(not no_instance, "dashboard: every query follows the instance variable", ", ".join(no_instance[:8]))
    # the panels the dashboard exists for (issue 13): utilisation, memory, power against its
    # limit, temperature and margin, clocks, throttling, PCIe and NVLink traffic, ECC, Xid,
    # remapping, health
    want = ["gpuvet_gpu_utilization_ratio", "gpuvet_memory_used_bytes", "gpuvet_power_watts",
            "gpuvet_power_limit_watts", "gpuvet_temperature_celsius",
            "gpuvet_temperature_margin_celsius", "gpuvet_sm_clock_hertz",
            "gpuvet_clock_event_seconds_total", "gpuvet_pcie_transmit_bytes_per_second",
            "gpuvet_nvlink_transmit_bytes_per_second", "gpuvet_ecc_errors_total",
            "gpuvet_xid_errors_total", "gpuvet_remap_pending", "gpuvet_health_status"]
    missing = [w for w in want if w not in used]
    result(not missing, "dashboard: has the panels issue 13 asks for", "no panel shows " + ", ".join(missing))


# ---- the rules -------------------------------------------------------------------------------

def load_yaml(path):
    import yaml
    with open(path) as f:
        return list(yaml.safe_load_all(f))


def check_rules(metrics_path, path, kernel_log_c):
    metrics = load_metrics(metrics_path)
    metrics.setdefault("up", ("gauge", set()))
    doc = load_yaml(path)[0]
    rules = [r for g in doc["groups"] for r in g["rules"]]
    records = {r["record"] for r in rules if "record" in r}
    problems, naming = [], []
    for r in rules:
        where = r.get("alert") or r.get("record")
        probs, info = check_expr(r["expr"], metrics, records, where)
        problems += probs
        if "alert" not in r:
            continue
        sev = r.get("labels", {}).get("severity")
        ann = r.get("annotations", {})
        if sev not in ("critical", "warning", "info") or not ann.get("summary") or not ann.get("description"):
            naming.append("%s: severity %r, annotations %s" % (where, sev, sorted(ann)))
            continue
        # an alert about a GPU names it: index, serial, UUID and its instance
        if info:
            e, labels = info
            # about a GPU, unless it selects the host's series (gpu="" or scope="host")
            host = any(m in (("gpu", "=", ""), ("scope", "=", "host")) for m in e.matchers)
            per_gpu = not host and ("serial" in labels or any(n in records for n in e.names()))
            need = ["instance"] + (["gpu", "serial", "uuid"] if per_gpu else [])
            if "absent(" in r["expr"]:
                need = []
            lacking = [n for n in need if "$labels.%s" % n not in ann["description"]]
            if lacking:
                naming.append("%s: the description does not name %s" % (where, ", ".join(lacking)))
    result(not problems, "rules: every expression uses only metrics and labels of contrib/metrics.txt",
           "; ".join(problems[:8]))
    result(not naming, "rules: every alert has a severity, a summary and a description naming the GPU",
           "; ".join(naming[:8]))

    # the fatal Xids: gpuvet's own table says which take a GPU out of service
    with open(kernel_log_c) as f:
        src = f.read()
    table = {int(n) for n, act in re.findall(r'\{(\d+), "[^"]*", XA_([A-Z]+)\}', src)
             if act in ("RESET", "REBOOT", "POWER", "SERVICE")}
    by_name = {r.get("alert"): r["expr"] for r in rules}

    def xids(alert, op):
        m = re.search(r'xid%s"([0-9|]+)"' % op, by_name.get(alert, ""))
        return {int(x) for x in m.group(1).split("|")} if m else set()
    fatal, other = xids("GpuvetXidFatal", "=~"), xids("GpuvetXid", "!~")
    result(len(table) >= 10 and fatal == table and other == table,
           "rules: the fatal Xids are those of gpuvet's table (%d)" % len(table),
           "table %s; GpuvetXidFatal %s; GpuvetXid excludes %s"
           % (sorted(table), sorted(fatal ^ table), sorted(other ^ table)))


# ---- Kubernetes ------------------------------------------------------------------------------

# the ServiceMonitor fields of prometheus-operator's monitoring.coreos.com/v1 CRD that this
# check knows (a subset of the schema: enough to catch a misspelt key)
SM_SPEC = {"jobLabel", "targetLabels", "podTargetLabels", "endpoints", "selector",
           "namespaceSelector", "sampleLimit", "targetLimit", "labelLimit", "labelNameLengthLimit",
           "labelValueLengthLimit", "attachMetadata", "scrapeProtocols", "bodySizeLimit",
           "keepDroppedTargets", "fallbackScrapeProtocol", "scrapeClass"}
SM_ENDPOINT = {"port", "targetPort", "path", "scheme", "params", "interval", "scrapeTimeout",
               "tlsConfig", "bearerTokenFile", "bearerTokenSecret", "authorization",
               "honorLabels", "honorTimestamps", "trackTimestampsStaleness", "basicAuth",
               "oauth2", "metricRelabelings", "relabelings", "proxyUrl", "noProxy",
               "proxyFromEnvironment", "proxyConnectHeader", "followRedirects", "enableHttp2",
               "filterRunning"}
SM_RELABEL = {"sourceLabels", "separator", "targetLabel", "regex", "modulus", "replacement",
              "action"}
SM_ACTIONS = {"replace", "keep", "drop", "hashmod", "labelmap", "labeldrop", "labelkeep",
              "lowercase", "uppercase", "keepequal", "dropequal", "Replace", "Keep", "Drop",
              "HashMod", "LabelMap", "LabelDrop", "LabelKeep", "Lowercase", "Uppercase",
              "KeepEqual", "DropEqual"}
DURATION = re.compile(r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$")


def check_servicemonitor(sm, service, ns):
    p = []
    if sm.get("apiVersion") != "monitoring.coreos.com/v1" or sm.get("kind") != "ServiceMonitor":
        p.append("apiVersion/kind %s/%s" % (sm.get("apiVersion"), sm.get("kind")))
    md, spec = sm.get("metadata", {}), sm.get("spec", {})
    if not md.get("name") or md.get("namespace") != ns:
        p.append("metadata %r" % md)
    if set(sm) - {"apiVersion", "kind", "metadata", "spec"}:
        p.append("unknown top-level keys %s" % sorted(set(sm) - {"apiVersion", "kind", "metadata", "spec"}))
    if set(spec) - SM_SPEC:
        p.append("unknown spec keys %s" % sorted(set(spec) - SM_SPEC))
    want = spec.get("selector", {}).get("matchLabels", {})
    have = service.get("metadata", {}).get("labels", {})
    if not want or any(have.get(k) != v for k, v in want.items()):
        p.append("selector %r does not select the Service's labels %r" % (want, have))
    if ns not in spec.get("namespaceSelector", {}).get("matchNames", []):
        p.append("namespaceSelector does not name %s" % ns)
    ports = {x.get("name") for x in service.get("spec", {}).get("ports", [])}
    eps = spec.get("endpoints", [])
    if not eps:
        p.append("no endpoints")
    for ep in eps:
        if set(ep) - SM_ENDPOINT:
            p.append("unknown endpoint keys %s" % sorted(set(ep) - SM_ENDPOINT))
        if ep.get("port") not in ports:
            p.append("endpoint port %r is not a port name of the Service (%s)" % (ep.get("port"), sorted(ports)))
        for k in ("interval", "scrapeTimeout"):
            if k in ep and not DURATION.match(str(ep[k])):
                p.append("%s %r is not a duration" % (k, ep[k]))
        for r in ep.get("relabelings", []) + ep.get("metricRelabelings", []):
            if set(r) - SM_RELABEL or r.get("action", "replace") not in SM_ACTIONS \
                    or not isinstance(r.get("sourceLabels", []), list) \
                    or (r.get("action", "replace").lower() == "replace" and not r.get("targetLabel")):
                p.append("relabeling %r" % r)
    if not eps or eps[0].get("interval") != "15s":
        p.append("interval is not 15s")
    return p


def check_k8s(path, sm_path):
    docs = [d for d in load_yaml(path) if d]
    by_kind = {d.get("kind"): d for d in docs}
    need = ["Namespace", "ServiceAccount", "DaemonSet", "Service"]
    result(all(k in by_kind for k in need) and len(docs) == len(by_kind),
           "k8s: gpuvet.yaml holds a Namespace, a ServiceAccount, a DaemonSet and a Service",
           "kinds: %s" % [d.get("kind") for d in docs])
    if not all(k in by_kind for k in need):
        return
    ns = by_kind["Namespace"]["metadata"]["name"]
    ds, svc = by_kind["DaemonSet"], by_kind["Service"]
    p = []
    for d in docs[1:]:
        if d["metadata"].get("namespace") != ns:
            p.append("%s in namespace %r" % (d["kind"], d["metadata"].get("namespace")))
    pod = ds["spec"]["template"]
    plabels = pod["metadata"].get("labels", {})
    for what, sel in (("DaemonSet selector", ds["spec"]["selector"].get("matchLabels", {})),
                      ("Service selector", svc["spec"].get("selector", {}))):
        if not sel or any(plabels.get(k) != v for k, v in sel.items()):
            p.append("%s %r does not select the pod's labels %r" % (what, sel, plabels))
    spec = pod["spec"]
    (c,) = spec["containers"]
    cports = {x.get("name"): x.get("containerPort") for x in c.get("ports", [])}
    args = c.get("args", [])
    listen = args[args.index("--listen") + 1] if "--listen" in args else ""
    if cports.get("metrics") is None or listen != ":%s" % cports.get("metrics"):
        p.append("the container listens on %r but its metrics port is %r" % (listen, cports.get("metrics")))
    sports = {x.get("name"): x for x in svc["spec"].get("ports", [])}
    if "metrics" not in sports or sports["metrics"].get("targetPort") not in ("metrics", cports.get("metrics")):
        p.append("the Service has no port metrics aimed at the container's")
    if spec.get("serviceAccountName") != by_kind["ServiceAccount"]["metadata"]["name"]:
        p.append("the pod does not use the ServiceAccount")
    result(not p, "k8s: names, namespaces, selectors and ports agree", "; ".join(p))

    # least privilege, the GPU through the NVIDIA runtime, bounded resources
    p = []
    sc, psc = c.get("securityContext", {}), spec.get("securityContext", {})
    if sc.get("privileged") or sc.get("allowPrivilegeEscalation", True) or not sc.get("readOnlyRootFilesystem") \
            or "ALL" not in sc.get("capabilities", {}).get("drop", []) or sc.get("capabilities", {}).get("add"):
        p.append("container securityContext %r" % sc)
    if not (psc.get("runAsNonRoot") or sc.get("runAsNonRoot")):
        p.append("runs as root")
    for k in ("hostPID", "hostNetwork", "hostIPC"):
        if spec.get(k):
            p.append("%s is on" % k)
    hp = [v["name"] for v in spec.get("volumes", []) if "hostPath" in v]
    if hp:
        p.append("hostPath volumes %s" % hp)
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    if spec.get("runtimeClassName") != "nvidia" or env.get("NVIDIA_VISIBLE_DEVICES") != "all":
        p.append("no runtimeClassName nvidia with NVIDIA_VISIBLE_DEVICES=all")
    res = c.get("resources", {})
    if res.get("requests") != {"cpu": "50m", "memory": "64Mi"} or res.get("limits") != {"cpu": "200m", "memory": "128Mi"}:
        p.append("resources %r" % res)
    if not any(t.get("key") == "nvidia.com/gpu" for t in spec.get("tolerations", [])) or not spec.get("nodeSelector"):
        p.append("no GPU node selector or nvidia.com/gpu toleration")
    result(not p, "k8s: the DaemonSet is unprivileged, reaches the GPUs through the NVIDIA runtime, "
           "has its resources and GPU node placement", "; ".join(p))

    # /healthz is 503 while a GPU fails: no probe may restart or unlist the pod for that
    p = []
    if "livenessProbe" not in c or "readinessProbe" not in c:
        p.append("a probe is missing")
    for k in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = c.get(k, {})
        if "healthz" in json.dumps(probe):
            p.append("%s asks /healthz" % k)
        if "httpGet" in probe and probe["httpGet"].get("port") not in ("metrics", cports.get("metrics")):
            p.append("%s asks another port" % k)
    result(not p, "k8s: no probe uses /healthz (a GPU fault must not restart or unlist the exporter)", "; ".join(p))

    sm = [d for d in load_yaml(sm_path) if d]
    if len(sm) != 1:
        result(False, "k8s: servicemonitor.yaml holds one ServiceMonitor", "%d documents" % len(sm))
        return
    p = check_servicemonitor(sm[0], svc, ns)
    result(not p, "k8s: the ServiceMonitor has the structure of prometheus-operator's CRD and "
           "scrapes the Service's metrics port every 15 s", "; ".join(p))


# ---- a scrape of gpuvet serve ------------------------------------------------------------------

SAMPLE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})?\s+\S+(\s+\S+)?$')
LABEL = re.compile(r'\s*([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?')


def check_scrape(metrics_path, path):
    metrics = load_metrics(metrics_path)
    unknown, badlab, badtype, types, n = set(), set(), set(), {}, 0
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# TYPE "):
                _, _, name, kind = line.split(None, 3)
                types[name] = kind
                continue
            if not line or line.startswith("#"):
                continue
            m = SAMPLE.match(line)
            if not m:
                unknown.add("unreadable line %r" % line[:60])
                continue
            n += 1
            name = m.group(1)
            if name not in metrics:
                unknown.add(name)
                continue
            labels = {lm.group(1) for lm in LABEL.finditer(m.group(3) or "")}
            extra = labels - metrics[name][1]
            if extra:
                badlab.add("%s{%s}" % (name, ",".join(sorted(extra))))
    for name, kind in types.items():
        base = name if name in metrics else name + "_total"  # OpenMetrics names counters without _total
        if base in metrics and metrics[base][0] != kind:
            badtype.add("%s is a %s, metrics.txt says %s" % (name, kind, metrics[base][0]))
    result(n > 0 and not unknown, "scrape: each of the %d samples has a name of contrib/metrics.txt" % n,
           ", ".join(sorted(unknown)[:10]) or "no samples")
    result(n > 0 and not badlab, "scrape: each sample has only the labels contrib/metrics.txt gives it",
           ", ".join(sorted(badlab)[:10]))
    result(n > 0 and not badtype, "scrape: each family has the type contrib/metrics.txt gives it",
           ", ".join(sorted(badtype)[:10]))


# ---- the dashboard's queries as recording rules, for `promtool check rules` to parse ----------

# Grafana's variables, replaced by what they stand for so that promtool reads plain PromQL
GRAFANA_VARS = [("$__rate_interval", "1m"), ("$__interval", "15s"), ("$__range", "6h"),
                ("${instance}", ".*"), ("$instance", ".*"), ("${gpu}", ".*"), ("$gpu", ".*")]


def write_promql(path, out):
    with open(path) as f:
        d = json.load(f)
    rules = []
    for p in all_panels(d.get("panels", [])):
        for t in p.get("targets", []):
            expr = t.get("expr", "")
            for var, value in GRAFANA_VARS:
                expr = expr.replace(var, value)
            rules.append({"record": "dashboard:panel%s:%s" % (p.get("id"), t.get("refId")), "expr": expr})
    # JSON is YAML: no PyYAML needed
    with open(out, "w") as f:
        json.dump({"groups": [{"name": "dashboard", "rules": rules}]}, f, indent=1)
    results.append("PASS dashboard: %d queries written for promtool" % len(rules))


def main(argv):
    cmds = {"dashboard": (check_dashboard, 2), "rules": (check_rules, 3),
            "k8s": (check_k8s, 2), "scrape": (check_scrape, 2), "promql": (write_promql, 2)}
    if len(argv) < 2 or argv[1] not in cmds or len(argv) != cmds[argv[1]][1] + 2:
        sys.stderr.write(__doc__)
        return 2
    cmds[argv[1]][0](*argv[2:])
    print("\n".join(results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
