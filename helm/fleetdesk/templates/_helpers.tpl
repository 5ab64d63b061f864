{{/*
Names, labels and small values shared by every template.
Helpers that take a component are called with (dict "ctx" $ "component" "auth");
the others with the root context.
*/}}

{{/* The components, in start order: the gateway first, then the services. */}}
{{- define "fleetdesk.components" -}}
gateway auth org vehicle energy finance telematics
{{- end }}

{{/* The gRPC services: every component but the gateway and telematics (the device edge). */}}
{{- define "fleetdesk.services" -}}
auth org vehicle energy finance
{{- end }}

{{- define "fleetdesk.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name prefix; component names add "-<component>", so keep room for it. */}}
{{- define "fleetdesk.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 48 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 48 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 48 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "fleetdesk.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Resource name of a component: <fullname>-<component>. */}}
{{- define "fleetdesk.componentName" -}}
{{- printf "%s-%s" (include "fleetdesk.fullname" .ctx) .component | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The one label helper. Call with (dict "ctx" $) for chart-wide objects or
(dict "ctx" $ "component" "auth") for a component's.
*/}}
{{- define "fleetdesk.labels" -}}
helm.sh/chart: {{ include "fleetdesk.chart" .ctx }}
{{ include "fleetdesk.selectorLabels" . }}
app.kubernetes.io/version: {{ .ctx.Values.global.image.tag | default .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: fleetdesk
{{- end }}

{{/* The immutable subset of the labels, for selectors. */}}
{{- define "fleetdesk.selectorLabels" -}}
app.kubernetes.io/name: {{ include "fleetdesk.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
{{- end }}

{{- define "fleetdesk.image" -}}
{{- printf "%s:%s" .Values.global.image.repository (.Values.global.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{- define "fleetdesk.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "fleetdesk.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "fleetdesk.configMapName" -}}
{{- printf "%s-config" (include "fleetdesk.fullname" .) }}
{{- end }}

{{- define "fleetdesk.databaseSecretName" -}}
{{- .Values.global.database.existingSecret | default (printf "%s-database" (include "fleetdesk.fullname" .)) }}
{{- end }}

{{- define "fleetdesk.signingKeySecretName" -}}
{{- .Values.global.internalSigningKey.existingSecret | default (printf "%s-internal-signing-key" (include "fleetdesk.fullname" .)) }}
{{- end }}

{{/*
Telematics' gRPC Service (MediaService for the gateway): its own ClusterIP
Service, since the component's main Service faces terminals and is often a
LoadBalancer.
*/}}
{{- define "fleetdesk.telematicsGrpcName" -}}
{{- printf "%s-grpc" (include "fleetdesk.componentName" (dict "ctx" . "component" "telematics")) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
In-cluster gRPC URL a component is dialled at: http://<fullname>-<component>:<port>,
for telematics http://<fullname>-telematics-grpc:<grpcService.port>.
*/}}
{{- define "fleetdesk.componentUrl" -}}
{{- $v := index .ctx.Values .component }}
{{- if eq .component "telematics" }}
{{- printf "http://%s:%v" (include "fleetdesk.telematicsGrpcName" .ctx) $v.grpcService.port }}
{{- else }}
{{- printf "http://%s:%v" (include "fleetdesk.componentName" .) $v.service.port }}
{{- end }}
{{- end }}

{{/* Environment every fleetdesk container gets from Secrets. */}}
{{- define "fleetdesk.databaseEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "fleetdesk.databaseSecretName" . }}
      key: {{ .Values.global.database.secretKey }}
{{- end }}

{{- define "fleetdesk.signingKeyEnv" -}}
- name: FLEETDESK_INTERNAL_SIGNING_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "fleetdesk.signingKeySecretName" . }}
      key: {{ .Values.global.internalSigningKey.secretKey }}
{{- end }}

{{- define "fleetdesk.authSecretName" -}}
{{- .Values.auth.sms.existingSecret | default (printf "%s-auth" (include "fleetdesk.fullname" .)) }}
{{- end }}

{{/* Environment only the auth service gets: SMS and WeCom settings. */}}
{{- define "fleetdesk.authEnv" -}}
- name: FLEETDESK_SMS_CODE_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "fleetdesk.authSecretName" . }}
      key: sms-code-key
{{- with .Values.auth.sms.providerUrl }}
- name: FLEETDESK_SMS_PROVIDER_URL
  value: {{ . | quote }}
- name: FLEETDESK_SMS_PROVIDER_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "fleetdesk.authSecretName" $ }}
      key: sms-provider-key
{{- end }}
{{- with .Values.auth.wecom.corpId }}
- name: FLEETDESK_WECOM_CORP_ID
  value: {{ . | quote }}
- name: FLEETDESK_WECOM_AGENT_ID
  value: {{ $.Values.auth.wecom.agentId | quote }}
- name: FLEETDESK_WECOM_REDIRECT_URI
  value: {{ $.Values.auth.wecom.redirectUri | quote }}
- name: FLEETDESK_WECOM_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ include "fleetdesk.authSecretName" $ }}
      key: wecom-secret
{{- end }}
{{- end }}

{{/* The Secret holding energy's OCPI token A. */}}
{{- define "fleetdesk.ocpiSecretName" -}}
{{- .Values.energy.ocpi.existingSecret | default (printf "%s-ocpi" (include "fleetdesk.fullname" .)) }}
{{- end }}

{{/* Environment only energy gets: its OCPI receiver, when enabled. */}}
{{- define "fleetdesk.ocpiEnv" -}}
{{- $o := .Values.energy.ocpi }}
{{- if $o.enabled }}
{{- if not $o.publicUrl }}
{{- fail "energy.ocpi.publicUrl is required when energy.ocpi.enabled is true" }}
{{- end }}
{{- if not (or $o.existingSecret $o.tokenA) }}
{{- fail "energy.ocpi needs tokenA or existingSecret when enabled" }}
{{- end }}
- name: FLEETDESK_OCPI_ADDR
  value: {{ printf "0.0.0.0:%v" $o.port | quote }}
- name: FLEETDESK_OCPI_PUBLIC_URL
  value: {{ $o.publicUrl | quote }}
- name: FLEETDESK_OCPI_TOKEN_A
  valueFrom:
    secretKeyRef:
      name: {{ include "fleetdesk.ocpiSecretName" . }}
      key: {{ $o.secretKey }}
{{- end }}
{{- end }}

{{/*
Environment only telematics gets: where terminals are told to stream video
(0x9101, 0x9201) and upload alarm evidence (0x9208). Each is set only when
given; unset, the edge tells its own listening port and the pod's outbound IP,
which terminals outside the cluster rarely reach.
*/}}
{{- define "fleetdesk.mediaEnv" -}}
{{- $m := .Values.telematics.media }}
{{- if $m.enabled }}
{{- with $m.publicHost }}
- name: FLEETDESK_MEDIA_PUBLIC_HOST
  value: {{ . | quote }}
{{- end }}
{{- range $key, $name := dict "publicPort" "FLEETDESK_MEDIA_PUBLIC_PORT" "playbackPublicPort" "FLEETDESK_MEDIA_PLAYBACK_PUBLIC_PORT" "attachmentPublicPort" "FLEETDESK_ATTACHMENT_PUBLIC_PORT" }}
{{- with index $m $key }}
{{- if not (and (ge (int .) 1) (le (int .) 65535)) }}
{{- fail (printf "telematics.media.%s must be a TCP port (1-65535), not %v" $key .) }}
{{- end }}
- name: {{ $name }}
  value: {{ int . | quote }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
