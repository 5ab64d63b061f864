{{/*
One shape for every component. templates/<component>/*.yaml call these with
(dict "ctx" $ "component" "<component>"); each renders nothing when the
component (or the feature) is disabled.

The gateway listens for HTTP on 8080 (port name http); the services listen for
gRPC on 50051 (port name grpc); telematics listens for JT/T 808 terminals on
TCP 8808 (port name jt808), for their JT/T 1078 video on 1078 (media, live)
and 1079 (playback), for their alarm evidence on 7611 (attachment), and for
the gateway's MediaService calls on gRPC 50051 (grpc, on a Service of its own:
fleetdesk.telematicsGrpcService).
*/}}

{{- define "fleetdesk.deployment" -}}
{{- $ctx := .ctx }}
{{- $c := .component }}
{{- $v := index $ctx.Values $c }}
{{- $gateway := eq $c "gateway" }}
{{- $edge := eq $c "telematics" }}
{{- if $v.enabled }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "fleetdesk.componentName" . }}
  namespace: {{ $ctx.Release.Namespace }}
  labels:
    {{- include "fleetdesk.labels" . | nindent 4 }}
spec:
  {{- if not $v.autoscaling.enabled }}
  replicas: {{ $v.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "fleetdesk.selectorLabels" . | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
  template:
    metadata:
      labels:
        {{- include "fleetdesk.selectorLabels" . | nindent 8 }}
        app.kubernetes.io/part-of: fleetdesk
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        checksum/config: {{ include (print $ctx.Template.BasePath "/configmap.yaml") $ctx | sha256sum }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "fleetdesk.serviceAccountName" $ctx }}
      automountServiceAccountToken: {{ $ctx.Values.serviceAccount.automountServiceAccountToken }}
      {{- with $ctx.Values.global.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $ctx.Values.global.podSecurityContext | nindent 8 }}
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      containers:
        - name: {{ $c }}
          image: {{ include "fleetdesk.image" $ctx }}
          imagePullPolicy: {{ $ctx.Values.global.image.pullPolicy }}
          args:
            - {{ $c }}
          ports:
            {{- if $gateway }}
            - name: http
              containerPort: 8080
              protocol: TCP
            {{- else if $edge }}
            - name: jt808
              containerPort: 8808
              protocol: TCP
            - name: grpc
              containerPort: 50051
              protocol: TCP
            - name: media
              containerPort: 1078
              protocol: TCP
            - name: playback
              containerPort: 1079
              protocol: TCP
            - name: attachment
              containerPort: 7611
              protocol: TCP
            {{- else }}
            - name: grpc
              containerPort: 50051
              protocol: TCP
            {{- if and (eq $c "energy") $v.ocpi.enabled }}
            - name: ocpi
              containerPort: {{ $v.ocpi.port }}
              protocol: TCP
            {{- end }}
            {{- end }}
          envFrom:
            - configMapRef:
                name: {{ include "fleetdesk.configMapName" $ctx }}
          env:
            {{- if $gateway }}
            - name: FLEETDESK_HTTP_ADDR
              value: "0.0.0.0:8080"
            - name: FLEETDESK_CONSOLE_DIR
              value: /srv/console
            - name: FLEETDESK_CORS_ORIGINS
              value: {{ join "," $ctx.Values.gateway.corsOrigins | quote }}
            - name: FLEETDESK_MAP_TILE_ORIGIN
              value: {{ $ctx.Values.gateway.mapTileOrigin | quote }}
            - name: FLEETDESK_TRUST_FORWARDED_FOR
              value: {{ $ctx.Values.gateway.trustForwardedFor | quote }}
            {{- else if $edge }}
            - name: FLEETDESK_JT808_ADDR
              value: "0.0.0.0:8808"
            - name: FLEETDESK_JT808_MAX_CONNECTIONS
              value: {{ $ctx.Values.telematics.maxConnections | quote }}
            - name: FLEETDESK_GRPC_ADDR
              value: "0.0.0.0:50051"
            - name: FLEETDESK_MEDIA_ADDR
              value: "0.0.0.0:1078"
            - name: FLEETDESK_MEDIA_PLAYBACK_ADDR
              value: "0.0.0.0:1079"
            - name: FLEETDESK_ATTACHMENT_ADDR
              value: "0.0.0.0:7611"
            {{- with include "fleetdesk.mediaEnv" $ctx }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- else }}
            - name: FLEETDESK_GRPC_ADDR
              value: "0.0.0.0:50051"
            {{- include "fleetdesk.databaseEnv" $ctx | nindent 12 }}
            {{- end }}
            - name: FLEETDESK_OBJECT_STORE_DIR
              value: /var/lib/fleetdesk/objects
            {{- include "fleetdesk.signingKeyEnv" $ctx | nindent 12 }}
            {{- if eq $c "auth" }}
            {{- include "fleetdesk.authEnv" $ctx | nindent 12 }}
            {{- end }}
            {{- if eq $c "energy" }}
            {{- include "fleetdesk.ocpiEnv" $ctx | nindent 12 }}
            {{- end }}
            - name: OTEL_SERVICE_NAME
              value: fleetdesk-{{ $c }}
            {{- with $ctx.Values.global.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          livenessProbe:
            {{- toYaml $v.livenessProbe | nindent 12 }}
          readinessProbe:
            {{- toYaml $v.readinessProbe | nindent 12 }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $ctx.Values.global.containerSecurityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            - name: objects
              mountPath: /var/lib/fleetdesk/objects
            {{- with $v.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir: {}
        - name: objects
          {{- with $ctx.Values.global.objectStore.existingClaim }}
          persistentVolumeClaim:
            claimName: {{ . }}
          {{- else }}
          emptyDir: {}
          {{- end }}
        {{- with $v.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
{{- end }}

{{- define "fleetdesk.service" -}}
{{- $ctx := .ctx }}
{{- $c := .component }}
{{- $v := index $ctx.Values $c }}
{{- if $v.enabled }}
{{- $port := ternary "http" (ternary "jt808" "grpc" (eq $c "telematics")) (eq $c "gateway") }}
{{- $media := and (eq $c "telematics") $v.media.enabled }}
{{- /* Fixed node ports (telematics: what terminals are told must not change). */}}
{{- $nodePorts := ternary (default dict $v.service.nodePorts) dict (and (eq $c "telematics") (ne $v.service.type "ClusterIP")) }}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "fleetdesk.componentName" . }}
  namespace: {{ $ctx.Release.Namespace }}
  labels:
    {{- include "fleetdesk.labels" . | nindent 4 }}
  {{- with $v.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ $v.service.type }}
  selector:
    {{- include "fleetdesk.selectorLabels" . | nindent 4 }}
  ports:
    - name: {{ $port }}
      port: {{ $v.service.port }}
      targetPort: {{ $port }}
      protocol: TCP
      {{- with index $nodePorts $port }}
      nodePort: {{ . }}
      {{- end }}
    {{- if and (eq $c "energy") $v.ocpi.enabled }}
    - name: ocpi
      port: {{ $v.ocpi.port }}
      targetPort: ocpi
      protocol: TCP
    {{- end }}
    {{- if $media }}
    {{- range $name := list "media" "playback" "attachment" }}
    - name: {{ $name }}
      port: {{ index $v.service (printf "%sPort" $name) }}
      targetPort: {{ $name }}
      protocol: TCP
      {{- with index $nodePorts $name }}
      nodePort: {{ . }}
      {{- end }}
    {{- end }}
    {{- end }}
{{- end }}
{{- end }}

{{/*
Telematics' gRPC (MediaService, health, reflection) for the gateway: always a
ClusterIP Service, apart from the terminal-facing one, so the gRPC port never
leaves the cluster with a LoadBalancer.
*/}}
{{- define "fleetdesk.telematicsGrpcService" -}}
{{- $v := .Values.telematics }}
{{- if $v.enabled }}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "fleetdesk.telematicsGrpcName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "fleetdesk.labels" (dict "ctx" . "component" "telematics") | nindent 4 }}
  {{- with $v.grpcService.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: ClusterIP
  selector:
    {{- include "fleetdesk.selectorLabels" (dict "ctx" . "component" "telematics") | nindent 4 }}
  ports:
    - name: grpc
      port: {{ $v.grpcService.port }}
      targetPort: grpc
      protocol: TCP
{{- end }}
{{- end }}

{{- define "fleetdesk.hpa" -}}
{{- $ctx := .ctx }}
{{- $v := index $ctx.Values .component }}
{{- if and $v.enabled $v.autoscaling.enabled }}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "fleetdesk.componentName" . }}
  namespace: {{ $ctx.Release.Namespace }}
  labels:
    {{- include "fleetdesk.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "fleetdesk.componentName" . }}
  minReplicas: {{ $v.autoscaling.minReplicas }}
  maxReplicas: {{ $v.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $v.autoscaling.targetCPUUtilizationPercentage }}
    {{- with $v.autoscaling.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
{{- end }}
{{- end }}

{{- define "fleetdesk.pdb" -}}
{{- $ctx := .ctx }}
{{- $v := index $ctx.Values .component }}
{{- if and $v.enabled $v.podDisruptionBudget.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "fleetdesk.componentName" . }}
  namespace: {{ $ctx.Release.Namespace }}
  labels:
    {{- include "fleetdesk.labels" . | nindent 4 }}
spec:
  {{- if not (kindIs "invalid" $v.podDisruptionBudget.minAvailable) }}
  minAvailable: {{ $v.podDisruptionBudget.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $v.podDisruptionBudget.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "fleetdesk.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}

{{/*
Ingress only: egress stays open (PostgreSQL, NATS, the OTLP collector and the
object store live outside the chart). Kubelet probes are not affected.
*/}}
{{- define "fleetdesk.networkpolicy" -}}
{{- $ctx := .ctx }}
{{- $c := .component }}
{{- $v := index $ctx.Values $c }}
{{- if and $v.enabled $ctx.Values.networkPolicy.enabled }}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "fleetdesk.componentName" . }}
  namespace: {{ $ctx.Release.Namespace }}
  labels:
    {{- include "fleetdesk.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "fleetdesk.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
  ingress:
    {{- if eq $c "gateway" }}
    - ports:
        - port: http
          protocol: TCP
      {{- with $ctx.Values.networkPolicy.gatewayFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- else if eq $c "telematics" }}
    - ports:
        - port: jt808
          protocol: TCP
        {{- if $v.media.enabled }}
        - port: media
          protocol: TCP
        - port: playback
          protocol: TCP
        - port: attachment
          protocol: TCP
        {{- end }}
      {{- with $ctx.Values.networkPolicy.terminalsFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- /* MediaService is the gateway's alone. */}}
    - ports:
        - port: grpc
          protocol: TCP
      from:
        - podSelector:
            matchLabels:
              {{- include "fleetdesk.selectorLabels" (dict "ctx" $ctx "component" "gateway") | nindent 14 }}
        {{- with $ctx.Values.networkPolicy.grpcFrom }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    {{- else }}
    - ports:
        - port: grpc
          protocol: TCP
      from:
        - podSelector:
            matchLabels:
              {{- include "fleetdesk.selectorLabels" (dict "ctx" $ctx) | nindent 14 }}
            matchExpressions:
              - key: app.kubernetes.io/component
                operator: In
                values:
                  {{- range splitList " " (include "fleetdesk.components" $ctx) }}
                  - {{ . }}
                  {{- end }}
        {{- with $ctx.Values.networkPolicy.grpcFrom }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    {{- if and (eq $c "energy") $v.ocpi.enabled }}
    - ports:
        - port: ocpi
          protocol: TCP
      {{- with $ctx.Values.networkPolicy.ocpiFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- end }}
{{- end }}
{{- end }}
