// Validates every manifest in k8s/ offline against the Kubernetes API schemas (the
// kubernetes-models package compiles them to JSON-schema validators), checks that
// kustomization.yaml lists exactly the manifests there are, and checks the properties the
// deployment relies on (headless engine Service, gRPC probes, a grace period that covers
// the shutdown delay plus the drain; the arena's gRPC probes and engine target, engine-client
// labels on every pod that may call the engine, a run-and-exit tournament Job, TLS or an
// explicit --insecure on every listener beyond loopback, the arena's store on a claim).
//
//   (cd k8s/validate && npm ci) && node k8s/validate/validate.mjs
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

const k8sDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const failures = [];
let checked = 0;

async function modelFor(apiVersion, kind) {
  // "v1" -> v1/Kind.mjs, "apps/v1" -> apps/v1/Kind.mjs
  try {
    const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
    return module[kind];
  } catch {
    return undefined;
  }
}

function flagValue(args, name) {
  const flag = (args || []).find((arg) => arg.startsWith(`--${name}=`));
  return flag === undefined ? undefined : Number(flag.split("=")[1]);
}

function checkEngine(object, where) {
  if (object.kind === "Service" && object.metadata.name === "gavel-engine" &&
      object.spec.clusterIP !== "None") {
    failures.push(`${where}: the engine Service must be headless (clusterIP: None)`);
  }
  if (object.kind !== "Deployment" || object.metadata.name !== "gavel-engine") return;
  const pod = object.spec.template.spec;
  const engine = pod.containers.find((container) => container.name === "engine");
  for (const probe of ["readinessProbe", "livenessProbe"]) {
    if (!engine[probe] || !engine[probe].grpc) failures.push(`${where}: ${probe} must be a gRPC probe`);
  }
  const needed = (flagValue(engine.args, "shutdown_delay_s") ?? 0) + (flagValue(engine.args, "drain_s") ?? 10);
  if (!(pod.terminationGracePeriodSeconds > needed)) {
    failures.push(`${where}: terminationGracePeriodSeconds must exceed shutdown delay + drain (${needed} s)`);
  }
  if (!(flagValue(engine.args, "max_connection_age_ms") > 0)) {
    failures.push(`${where}: the engine must set --max_connection_age_ms so clients re-resolve`);
  }
}

function stringFlag(args, name) {
  const flag = (args || []).find((arg) => arg.startsWith(`--${name}=`));
  return flag === undefined ? undefined : flag.slice(name.length + 3);
}

// Pods of the arena, the bots and the tournament Job call the engine: the engine's
// NetworkPolicy admits them by this label.
function checkEngineClients(object, where) {
  const name = object.metadata.name;
  if (object.kind === "ConfigMap" && name === "gavel-arena") {
    const flags = (object.data?.["arena.flags"] || "").split("\n").map((line) => line.trim());
    const engine = stringFlag(flags, "engine");
    if (!engine || !/^dns:\/\/\/gavel-engine(\.[a-z0-9-]+\.svc\.cluster\.local)?:50051$/.test(engine)) {
      failures.push(`${where}: the arena's --engine must be dns:///gavel-engine[.<ns>.svc.cluster.local]:50051 (headless, round_robin), not ${engine}`);
    }
    return;
  }
  if (!["Deployment", "StatefulSet", "Job"].includes(object.kind)) return;
  if (!(name.startsWith("gavel-arena") || name.startsWith("gavel-bot") || name === "gavel-tournament")) return;
  const template = object.spec.template;
  if (template.metadata?.labels?.["gavel.dev/engine-client"] !== "true") {
    failures.push(`${where}: ${name} pods need the label gavel.dev/engine-client: "true"`);
  }
  const pod = template.spec;
  const containers = [...(pod.initContainers || []), ...pod.containers];
  for (const container of containers) {
    if (container.securityContext?.allowPrivilegeEscalation !== false ||
        container.securityContext?.readOnlyRootFilesystem !== true) {
      failures.push(`${where}: ${name}/${container.name} must not escalate and must have a read-only root`);
    }
  }
  if (pod.securityContext?.runAsNonRoot !== true) failures.push(`${where}: ${name} must run as non-root`);
  const arena = pod.containers.find((container) => container.name === "arena");
  if (object.kind === "StatefulSet" && name === "gavel-arena") {
    for (const probe of ["readinessProbe", "livenessProbe"]) {
      if (!arena?.[probe]?.grpc) failures.push(`${where}: the arena's ${probe} must be a gRPC probe`);
    }
    if (!stringFlag(arena?.args, "metrics_listen")) failures.push(`${where}: the arena must serve metrics`);
  }
  if (object.kind === "Job" && !(arena?.args || []).includes("--exit_after_tournament")) {
    failures.push(`${where}: the tournament Job's arena must run with --exit_after_tournament`);
  }
}

// A server that listens beyond loopback either serves TLS or says --insecure: the binaries
// refuse to start otherwise, so a manifest without either would never become ready.
function checkListeners(object, where) {
  const pod = object.spec?.template?.spec ?? object.spec?.jobTemplate?.spec?.template?.spec;
  if (!pod) return;
  for (const container of [...(pod.initContainers || []), ...(pod.containers || [])]) {
    const listen = stringFlag(container.args, "listen");
    if (!listen || /^(127\.|localhost:|\[::1\]:)/.test(listen)) continue;
    if (!stringFlag(container.args, "tls_cert") && !(container.args || []).includes("--insecure")) {
      failures.push(`${where}: ${container.name} listens on ${listen} without --tls_cert or --insecure`);
    }
  }
}

// A bot that reaches the arena beyond loopback does so over TLS with an account token (the
// arena admits no one else there, and gavel-bot refuses to send a token in plaintext).
function checkBots(object, where) {
  const pod = object.spec?.template?.spec ?? object.spec?.jobTemplate?.spec?.template?.spec;
  if (!pod) return;
  for (const container of [...(pod.initContainers || []), ...(pod.containers || [])]) {
    const args = container.args || [];
    if (args[0] !== "bot") continue;
    const arena = stringFlag(args, "arena") ?? "127.0.0.1:50061";
    if (/^(127\.|localhost:|\[::1\]:)/.test(arena)) continue;
    if (!stringFlag(args, "token_file")) failures.push(`${where}: ${container.name} reaches ${arena} without --token_file`);
    if (!stringFlag(args, "tls_ca") && !args.includes("--tls")) {
      failures.push(`${where}: ${container.name} reaches ${arena} without TLS (--tls_ca or --tls)`);
    }
  }
}

// The arena's store (mounted at /var/lib/gavel) must outlive its pod: a claim, never an
// emptyDir, and the arena itself a StatefulSet whose claim template provides it.
function checkStore(object, where) {
  const pod = object.spec?.template?.spec ?? object.spec?.jobTemplate?.spec?.template?.spec;
  if (!pod) return;
  const volumes = new Map((pod.volumes || []).map((volume) => [volume.name, volume]));
  const claims = new Set((object.spec?.volumeClaimTemplates || []).map((claim) => claim.metadata.name));
  for (const container of [...(pod.initContainers || []), ...(pod.containers || [])]) {
    for (const mount of container.volumeMounts || []) {
      if (mount.mountPath !== "/var/lib/gavel") continue;
      const volume = volumes.get(mount.name);
      if (claims.has(mount.name) || volume?.persistentVolumeClaim) continue;
      failures.push(`${where}: ${container.name} keeps the store on ${volume ? Object.keys(volume).filter((k) => k !== "name").join(",") : "nothing"}, not on a PersistentVolumeClaim`);
    }
  }
  if (object.metadata.name === "gavel-arena" && object.kind !== "Service" && object.kind !== "ConfigMap" &&
      object.kind !== "StatefulSet") {
    failures.push(`${where}: the arena must be a StatefulSet (its store's claim follows the pod)`);
  }
}

const manifests = readdirSync(k8sDir).filter((name) => name.endsWith(".yaml") && name !== "kustomization.yaml");
for (const file of manifests) {
  const documents = parseAllDocuments(readFileSync(join(k8sDir, file), "utf8"));
  for (const [index, document] of documents.entries()) {
    const where = `${file}#${index}`;
    if (document.errors.length) {
      failures.push(`${where}: ${document.errors[0].message}`);
      continue;
    }
    const object = document.toJSON();
    if (!object) continue;
    const Model = await modelFor(object.apiVersion, object.kind);
    if (!Model) {
      failures.push(`${where}: unknown apiVersion/kind ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      failures.push(`${where} (${object.kind} ${object.metadata?.name}): ${error.message}`);
      continue;
    }
    checkEngine(object, where);
    checkEngineClients(object, where);
    checkListeners(object, where);
    checkBots(object, where);
    checkStore(object, where);
    checked += 1;
  }
}

const kustomization = parseAllDocuments(readFileSync(join(k8sDir, "kustomization.yaml"), "utf8"))[0].toJSON();
const listed = new Set(kustomization.resources || []);
for (const file of manifests) if (!listed.has(file)) failures.push(`kustomization.yaml does not list ${file}`);
for (const file of listed) if (!manifests.includes(file)) failures.push(`kustomization.yaml lists missing ${file}`);

// The PostgreSQL overlay (k8s/postgres): its files exist and parse, its new objects validate,
// its arena patch takes the store from the Secret and keeps no volume, and every bot it
// patches reaches each arena over TLS with a token.
const overlayDir = join(k8sDir, "postgres");
const overlay = parseAllDocuments(readFileSync(join(overlayDir, "kustomization.yaml"), "utf8"))[0].toJSON();
const overlayFiles = [...(overlay.resources || []).filter((path) => path !== "../"),
                      ...(overlay.patches || []).filter((patch) => patch.path).map((patch) => patch.path)];
const overlayObjects = [];
for (const file of overlayFiles) {
  let documents;
  try {
    documents = parseAllDocuments(readFileSync(join(overlayDir, file), "utf8"));
  } catch (error) {
    failures.push(`postgres/${file}: ${error.message}`);
    continue;
  }
  for (const document of documents) {
    if (document.errors.length) failures.push(`postgres/${file}: ${document.errors[0].message}`);
    else overlayObjects.push({ file, object: document.toJSON(), full: (overlay.resources || []).includes(file) });
  }
}
for (const { file, object, full } of overlayObjects) {
  if (!full) continue;
  const Model = await modelFor(object.apiVersion, object.kind);
  try {
    new Model(object).validate();
    checked += 1;
  } catch (error) {
    failures.push(`postgres/${file} (${object.kind} ${object.metadata?.name}): ${error.message}`);
  }
}
const arenaPatch = overlayObjects.find(({ object }) => object.kind === "StatefulSet" && object.metadata.name === "gavel-arena");
const arenaContainer = arenaPatch?.object.spec?.template?.spec?.containers?.find((c) => c.name === "arena");
if (!arenaContainer) failures.push("postgres: no patch of the arena StatefulSet");
else {
  if (stringFlag(arenaContainer.args, "db") !== "$(GAVEL_DB)") failures.push("postgres: the arena's --db must be $(GAVEL_DB)");
  if (!arenaContainer.env?.some((env) => env.name === "GAVEL_DB" && env.valueFrom?.secretKeyRef)) {
    failures.push("postgres: GAVEL_DB must come from a Secret");
  }
  if (!stringFlag(arenaContainer.args, "tls_cert")) failures.push("postgres: the arenas must serve TLS");
  if (!stringFlag(arenaContainer.args, "coordinator")) failures.push("postgres: one arena must coordinate (--coordinator)");
  if (!arenaContainer.volumeMounts?.some((mount) => mount.mountPath === "/var/lib/gavel" && mount.$patch === "delete")) {
    failures.push("postgres: the arena must drop the store's volume mount");
  }
}
if (!(overlay.patches || []).some((patch) => /remove\s+path: \/spec\/volumeClaimTemplates/.test(patch.patch || ""))) {
  failures.push("postgres: the arena's volume claim template must be removed");
}
for (const { file, object } of overlayObjects) {
  if (object.kind !== "Deployment") continue;
  const where = `postgres/${file}`;
  checkBots(object, where);
  for (const container of object.spec.template.spec.containers) {
    if ((stringFlag(container.args, "arena") || "").split(",").filter(Boolean).length < 2) {
      failures.push(`${where}: ${container.name} of ${object.metadata.name} must connect to every arena`);
    }
  }
}

if (failures.length) {
  for (const failure of failures) console.error(`FAIL ${failure}`);
  console.error(`${checked} passed, ${failures.length} failed`);
  process.exit(1);
}
console.log(`${checked} passed, 0 failed`);
