{{- define "heddle.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "heddle.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "heddle.labels" -}}
{{ include "heddle.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "heddle.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* Whether the nodes use PostgreSQL (else the embedded SQLite store on a volume). */}}
{{- define "heddle.usesDatabase" -}}
{{- if or .Values.database.url .Values.database.existingSecret -}}true{{- end -}}
{{- end -}}

{{- define "heddle.databaseSecret" -}}
{{- .Values.database.existingSecret | default (include "heddle.fullname" .) -}}
{{- end -}}

{{- define "heddle.adminKeyKey" -}}
{{- if .Values.adminKey.existingSecret }}{{ .Values.adminKey.existingSecretKey }}{{ else }}admin-key{{ end -}}
{{- end -}}

{{- define "heddle.databaseKey" -}}
{{- if .Values.database.existingSecret }}{{ .Values.database.existingSecretKey }}{{ else }}database-url{{ end -}}
{{- end -}}

{{- define "heddle.adminKeySecret" -}}
{{- .Values.adminKey.existingSecret | default (include "heddle.fullname" .) -}}
{{- end -}}

{{/* The environment every Heddle container gets: settings from the ConfigMap, secrets by reference. */}}
{{- define "heddle.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "heddle.fullname" . }}
  {{- with .Values.extraEnvFrom }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
env:
  - name: HEDDLE_ADMIN_KEY
    valueFrom:
      secretKeyRef:
        name: {{ include "heddle.adminKeySecret" . }}
        key: {{ include "heddle.adminKeyKey" . }}
  {{- if include "heddle.usesDatabase" . }}
  - name: HEDDLE_DATABASE_URL
    valueFrom:
      secretKeyRef:
        name: {{ include "heddle.databaseSecret" . }}
        key: {{ include "heddle.databaseKey" . }}
  {{- end }}
{{- end -}}

{{- define "heddle.checks" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (include "heddle.usesDatabase" .)) -}}
{{- fail "replicaCount > 1 needs PostgreSQL: set database.existingSecret (or database.url); SQLite is one process" -}}
{{- end -}}
{{- if and .Values.migration.enabled (not .Values.database.existingSecret) -}}
{{- fail "migration.enabled needs database.existingSecret: the hook Job runs before the chart's own Secret exists" -}}
{{- end -}}
{{- end -}}
