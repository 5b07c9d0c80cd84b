{{/* Names, labels and the pieces every miRAGe container shares. */}}

{{- define "mirage.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "mirage.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "mirage.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Standard labels; call with (dict "ctx" $ "component" "query"). */}}
{{- define "mirage.labels" -}}
helm.sh/chart: {{ include "mirage.chart" .ctx }}
{{ include "mirage.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: mirage
{{- end }}

{{/* Minimal and immutable: name, instance, component. */}}
{{- define "mirage.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mirage.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end }}

{{- define "mirage.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag }}
{{- end }}

{{- define "mirage.secretName" -}}
{{ .Values.auth.existingSecret | default (printf "%s-auth" (include "mirage.fullname" .)) }}
{{- end }}

{{- define "mirage.envConfigMapName" -}}
{{ include "mirage.fullname" . }}-env
{{- end }}

{{- define "mirage.instanceConfigMapName" -}}
{{ include "mirage.fullname" . }}-dagster-instance
{{- end }}

{{- define "mirage.documentsClaimName" -}}
{{ .Values.documents.existingClaim | default (printf "%s-documents" (include "mirage.fullname" .)) }}
{{- end }}

{{- define "mirage.dagsterServiceAccountName" -}}
{{ include "mirage.fullname" . }}-dagster
{{- end }}

{{- define "mirage.runServiceAccountName" -}}
{{ include "mirage.fullname" . }}-run
{{- end }}

{{- define "mirage.codeLocationHost" -}}
{{ include "mirage.fullname" . }}-code-location
{{- end }}

{{/* Database coordinates (not the password): the bundled StatefulSet or externalDatabase. */}}
{{- define "mirage.db.host" -}}
{{- if .Values.postgresql.enabled -}}
{{ include "mirage.fullname" . }}-postgresql
{{- else -}}
{{ required "externalDatabase.host is required when postgresql.enabled=false" .Values.externalDatabase.host }}
{{- end }}
{{- end }}

{{- define "mirage.db.port" -}}
{{ ternary .Values.postgresql.port .Values.externalDatabase.port .Values.postgresql.enabled }}
{{- end }}

{{- define "mirage.db.username" -}}
{{ ternary .Values.postgresql.auth.username .Values.externalDatabase.username .Values.postgresql.enabled }}
{{- end }}

{{- define "mirage.db.database" -}}
{{ ternary .Values.postgresql.auth.database .Values.externalDatabase.database .Values.postgresql.enabled }}
{{- end }}

{{- define "mirage.db.dagsterDatabase" -}}
{{ ternary .Values.postgresql.dagsterDatabase .Values.externalDatabase.dagsterDatabase .Values.postgresql.enabled }}
{{- end }}

{{- define "mirage.db.sslmode" -}}
{{- if not .Values.postgresql.enabled }}{{ .Values.externalDatabase.sslmode }}{{ end }}
{{- end }}

{{/* The index's URL. The password is not in it: Kubernetes expands $(DAGSTER_PG_PASSWORD),
     which the container takes from the Secret just before this variable. */}}
{{- define "mirage.db.url" -}}
{{- $url := printf "postgresql://%s:$(DAGSTER_PG_PASSWORD)@%s:%v/%s" (include "mirage.db.username" .) (include "mirage.db.host" .) (include "mirage.db.port" .) (include "mirage.db.database" .) }}
{{- with include "mirage.db.sslmode" . }}{{ $url = printf "%s?sslmode=%s" $url . }}{{ end }}
{{- $url }}
{{- end }}

{{- define "mirage.ollamaUrl" -}}
{{- if .Values.ollama.enabled -}}
http://{{ include "mirage.fullname" . }}-ollama:{{ .Values.ollama.port }}
{{- else -}}
{{ required "ollama.externalUrl is required when ollama.enabled=false" .Values.ollama.externalUrl }}
{{- end }}
{{- end }}

{{- define "mirage.embedder" -}}
{{ .Values.mirage.embedder | default (printf "ollama:%s" .Values.ollama.model) }}
{{- end }}

{{/* Environment of every miRAGe container that touches the index, run pods included.
     Secrets come by reference; the order matters (the URL expands the password). */}}
{{- define "mirage.env" -}}
- name: DAGSTER_PG_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "mirage.secretName" . }}
      key: postgresql-password
- name: MIRAGE_DATABASE_URL
  value: {{ include "mirage.db.url" . | quote }}
{{- end }}

{{- define "mirage.envFrom" -}}
- configMapRef:
    name: {{ include "mirage.envConfigMapName" . }}
{{- end }}

{{/* The documents volume and a writable /tmp (the root filesystem is read-only). */}}
{{- define "mirage.volumes" -}}
- name: documents
  persistentVolumeClaim:
    claimName: {{ include "mirage.documentsClaimName" . }}
- name: tmp
  emptyDir: {}
{{- end }}

{{- define "mirage.volumeMounts" -}}
- name: documents
  mountPath: {{ .Values.documents.mountPath }}
- name: tmp
  mountPath: /tmp
{{- end }}

{{/* Pod-level scheduling shared by the pods that mount the documents volume. */}}
{{- define "mirage.documentsScheduling" -}}
{{- with .Values.documents.nodeName }}
nodeSelector:
  kubernetes.io/hostname: {{ . }}
{{- else }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{- define "mirage.imagePullSecrets" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* Init container: wait for PostgreSQL and for the embedding model (pulled by the hook Job). */}}
{{/* Init container: wait for PostgreSQL and the embedder; with "schema" true, also for the
     schema the code location's migrate step brings (the query service never migrates). */}}
{{- define "mirage.waitForDependencies" -}}
{{- $ctx := .ctx -}}
- name: wait-for-dependencies
  image: {{ include "mirage.image" $ctx }}
  imagePullPolicy: {{ $ctx.Values.image.pullPolicy }}
  command: ["python", "/opt/mirage/scripts/wait_for_dependencies.py"]
  env:
    {{- include "mirage.env" $ctx | nindent 4 }}
    - name: MIRAGE_WAIT_TIMEOUT
      value: {{ $ctx.Values.waitForDependencies.timeoutSeconds | quote }}
    {{- if .schema }}
    - name: MIRAGE_WAIT_FOR_SCHEMA
      value: "1"
    {{- end }}
  envFrom:
    {{- include "mirage.envFrom" $ctx | nindent 4 }}
  volumeMounts:
    - name: scripts
      mountPath: /opt/mirage/scripts
      readOnly: true
    - name: tmp
      mountPath: /tmp
  securityContext:
    {{- toYaml $ctx.Values.securityContext | nindent 4 }}
  resources:
    {{- toYaml $ctx.Values.waitForDependencies.resources | nindent 4 }}
{{- end }}

{{/* Init container of the code location: migrate the schema and bind the embedder's index
     (mirage_pipeline.store.migrate), before the pipeline and the query service use them. */}}
{{- define "mirage.migrate" -}}
- name: migrate
  image: {{ include "mirage.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  command: ["python", "-m", "mirage_pipeline.store.migrate"]
  env:
    {{- include "mirage.env" . | nindent 4 }}
  envFrom:
    {{- include "mirage.envFrom" . | nindent 4 }}
  volumeMounts:
    - name: tmp
      mountPath: /tmp
  securityContext:
    {{- toYaml .Values.securityContext | nindent 4 }}
  resources:
    {{- toYaml .Values.waitForDependencies.resources | nindent 4 }}
{{- end }}

{{- define "mirage.scriptsVolume" -}}
- name: scripts
  configMap:
    name: {{ include "mirage.fullname" . }}-scripts
{{- end }}

{{/* $DAGSTER_HOME: an emptyDir (Dagster writes there) holding dagster.yaml and workspace.yaml. */}}
{{- define "mirage.dagsterHomeVolumes" -}}
- name: dagster-home
  emptyDir: {}
- name: dagster-instance
  configMap:
    name: {{ include "mirage.instanceConfigMapName" . }}
{{- end }}

{{- define "mirage.dagsterHomeMounts" -}}
- name: dagster-home
  mountPath: /opt/dagster/dagster_home
- name: dagster-instance
  mountPath: /opt/dagster/dagster_home/dagster.yaml
  subPath: dagster.yaml
  readOnly: true
- name: dagster-instance
  mountPath: /opt/dagster/dagster_home/workspace.yaml
  subPath: workspace.yaml
  readOnly: true
{{- end }}

{{/* What the code location's container and every run pod mount: the same, so a run sees what
     the sensor saw. */}}
{{- define "mirage.runVolumes" -}}
{{ include "mirage.volumes" . }}
{{ include "mirage.dagsterHomeVolumes" . }}
{{- end }}

{{- define "mirage.runVolumeMounts" -}}
{{ include "mirage.volumeMounts" . }}
{{ include "mirage.dagsterHomeMounts" . }}
{{- end }}

{{/* NetworkPolicy peers: this release's pods of the given components. */}}
{{- define "mirage.fromComponents" -}}
- podSelector:
    matchLabels:
      app.kubernetes.io/instance: {{ .ctx.Release.Name }}
    matchExpressions:
      - key: app.kubernetes.io/component
        operator: In
        values:
          {{- toYaml .components | nindent 10 }}
{{- end }}
