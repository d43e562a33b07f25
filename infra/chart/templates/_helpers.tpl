{{/* The base name of every object: the release name unless fullnameOverride is set. */}}
{{- define "platform-api.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 52 | trimSuffix "-" -}}
{{- end }}

{{- define "platform-api.labels" -}}
app.kubernetes.io/name: platform-api
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* The functions, in the order of the route table's FUNCTION_NAMES. */}}
{{- define "platform-api.functionNames" -}}
login public-config resources internal run-logs
{{- end }}

{{- define "platform-api.serviceAccountName" -}}
{{ include "platform-api.fullname" . }}-api
{{- end }}

{{/* The ClusterRole the API server binds to itself in each Project's namespace, for the VariableSets' Secrets. */}}
{{- define "platform-api.projectSecretsClusterRole" -}}
{{ include "platform-api.fullname" . }}-project-secrets
{{- end }}

{{- define "platform-api.projectTokensClusterRole" -}}
{{ include "platform-api.fullname" . }}-project-tokens
{{- end }}

{{- define "platform-api.controllerServiceAccountName" -}}
{{ default (printf "%s-controller" (include "platform-api.fullname" .)) .Values.controller.serviceAccountName }}
{{- end }}

{{/* The Kubernetes Secret the functions read: the named one, or the chart's own `<fullname>-api`. */}}
{{- define "platform-api.secretName" -}}
{{ default (printf "%s-api" (include "platform-api.fullname" .)) .Values.api.secret.name }}
{{- end }}

{{/* Whether the chart renders the admin Secret itself. */}}
{{- define "platform-api.ownsSecret" -}}
{{- if and (not .Values.api.secret.name) (ne .Values.api.secret.source "aws-secretsmanager") }}true{{ end -}}
{{- end }}

{{- define "platform-api.baseUrl" -}}
{{- if .Values.api.baseUrl -}}
{{ trimSuffix "/" .Values.api.baseUrl }}
{{- else if .Values.gateway.hostnames -}}
https://{{ first .Values.gateway.hostnames }}
{{- else -}}
http://{{ include "platform-api.fullname" . }}-public-config.{{ .Release.Namespace }}.svc.cluster.local
{{- end }}
{{- end }}

{{/*
The data of the chart's admin Secret, as JSON of base64 values. Computed once per render and
memoised in .Values, because the Secret and every revision's checksum must see the same random
values. Precedence per key: the value given, else what the Secret in the cluster already holds
(lookup; empty under `helm template` and other renders without a cluster), else a new random one.
*/}}
{{- define "platform-api.adminSecretData" -}}
{{- if not (hasKey .Values "__adminSecretData") -}}
{{- $account := .Values.api.adminAccount -}}
{{- $existing := (lookup "v1" "Secret" .Release.Namespace (include "platform-api.secretName" .)).data | default dict -}}
{{- $hash := $account.passwordHash | default (get $existing "ADMIN_ACCOUNT_PASSWORD_HASH" | b64dec) | default (bcrypt (randAlphaNum 32)) -}}
{{- $key := $account.tokenSigningKey | default (get $existing "ADMIN_ACCOUNT_TOKEN_SIGNING_KEY" | b64dec) | default (randAlphaNum 64) -}}
{{- $data := dict
  "ADMIN_ACCOUNT_ENABLED" (toString $account.enabled | b64enc)
  "ADMIN_ACCOUNT_PASSWORD_HASH" ($hash | b64enc)
  "ADMIN_ACCOUNT_TOKEN_SIGNING_KEY" ($key | b64enc)
  "ADMIN_ACCOUNT_TOKEN_TTL" ($account.tokenTTL | b64enc) -}}
{{- $_ := set .Values "__adminSecretData" $data -}}
{{- end -}}
{{- toJson (get .Values "__adminSecretData") -}}
{{- end }}

{{/*
What every revision template carries as `checksum/admin-secret`: the hash of the admin settings'
contents, so a change rolls out new revisions. The named Secret is hashed as the cluster holds it
(lookup); without a cluster, or for Secrets Manager, only where it lives is hashed.
*/}}
{{- define "platform-api.adminSecretChecksum" -}}
{{- if include "platform-api.ownsSecret" . -}}
{{ include "platform-api.adminSecretData" . | sha256sum }}
{{- else if .Values.api.secret.name -}}
{{ (lookup "v1" "Secret" .Release.Namespace .Values.api.secret.name).data | default dict | toJson | printf "%s/%s" .Values.api.secret.name | sha256sum }}
{{- else -}}
{{ printf "%s/%s" .Values.api.secret.aws.region .Values.api.secret.aws.secretId | sha256sum }}
{{- end }}
{{- end }}

{{/* ADMIN_SECRET_SOURCE for the functions. */}}
{{- define "platform-api.adminSecretSource" -}}
{{- $source := .Values.api.secret.source -}}
{{- if eq $source "env" -}}env
{{- else if eq $source "file" -}}file:/var/run/secrets/platform-api/admin
{{- else if eq $source "kubernetes" -}}kubernetes:{{ .Release.Namespace }}/{{ include "platform-api.secretName" . }}
{{- else -}}aws-secretsmanager:{{ required "api.secret.aws.secretId is required with api.secret.source=aws-secretsmanager" .Values.api.secret.aws.secretId }}
{{- end }}
{{- end }}

{{/* The settings of one function: functions.defaults, overridden by functions.overrides.<name>. */}}
{{- define "platform-api.functionSettings" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- toJson (merge (deepCopy (get $root.Values.functions.overrides $name | default dict)) (deepCopy $root.Values.functions.defaults)) -}}
{{- end }}
