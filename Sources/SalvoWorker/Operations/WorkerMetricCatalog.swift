/// Every metric family a worker exports, with the one-line `# HELP` text Prometheus shows for it.
///
/// docs/metrics.md is the contract; this is its code-side copy for the help lines (a test checks
/// that both list the same names, so a new metric cannot ship undocumented or without help).
package enum WorkerMetricCatalog {
    package static let help: [String: String] = worker.merging(apns) { $1 }.merging(kafka) { $1 }

    private static let worker: [String: String] = [
        "salvo_build_info":
            "Always 1; the labels name the salvo version and the librdkafka and libnghttp2 versions loaded.",
        "salvo_notifications_total": "Notification outcomes by app, outcome and reason (empty for delivered).",
        "salvo_jobs_total": "Jobs read from Kafka by lane and result (completed or rejected as bad input).",
        "salvo_dead_letters_total": "Records written to the dead-letter topic, by reason.",
        "salvo_feedback_events_total":
            "Invalid-token and deleted-channel events written to the feedback topic, by app and reason.",
        "salvo_broadcasts_total":
            "Broadcast jobs (Live Activity channels) by outcome: delivered, retry_scheduled, dead_lettered, cancelled, abandoned.",
        "salvo_live_activity_warnings_total":
            "Live Activity payloads a device would partly ignore, by kind (the job is still sent).",
        "salvo_notifications_in_flight": "Notifications handed to APNs pools and not yet answered.",
        "salvo_dispatch_flight_limit":
            "Notifications the worker keeps in flight at most now: the pools' stream credit, less while answers queue.",
        "salvo_notifications_queued": "Notifications decoded and waiting in a lane.",
        "salvo_retry_queue_depth": "Notifications held by the in-process retry scheduler for another attempt.",
        "salvo_notifications_delayed":
            "Sends a rate limit delays (not an attempt); they count against the dispatch window.",
        "salvo_notifications_parked":
            "Notifications held because their APNs pool is unhealthy; they use up no attempt.",
        "salvo_apns_pool_healthy":
            "1 while the APNs pool (app/environment) is healthy, 0 while it is unhealthy or probing.",
        "salvo_dead_letters_without_body_total":
            "Records Kafka refused for good, replaced by a body-less dead letter, by refused topic.",
        "salvo_checkpoint_skipped_notifications_total":
            "Notifications skipped because a job's checkpoint recorded them done (a job read again after a crash).",
        "salvo_checkpoint_skipped_jobs_total":
            "Jobs read again that a partition checkpoint recorded complete, completed without sending.",
        "salvo_checkpoint_waits_total":
            "Times a job reached kafka.max_unconfirmed_sends and waited for a checkpoint's acknowledgement.",
        "salvo_checkpoint_wait_seconds_total":
            "Time jobs spent waiting for a checkpoint's acknowledgement (kafka.max_unconfirmed_sends).",
        "salvo_commit_gate_closed":
            "1 while offset commits fail and too much completed work is uncommitted: no new work is taken.",
        "salvo_revoke_dropped_notifications_total":
            "Notifications of revoked partitions dropped unsent; their next owner sends them.",
        "salvo_revoke_unsettled_jobs_total":
            "Jobs of revoked partitions given up with work still in flight; their next owner may send it again.",
        "salvo_records_abandoned_total":
            "Body-less dead letters Kafka refused too, given up so their partition commits.",
        "salvo_rate_limited_total": "Sends delayed by a rate limit (app or device).",
        "salvo_consumer_lag": "High watermark minus next offset to read, per assigned partition, sampled every 5 s.",
        "salvo_end_to_end_latency_seconds": "Kafka record timestamp to APNs accepted, by lane.",
        "salvo_worker_ready": "1 while /health/ready answers 200: a partition assigned and not draining.",
    ]

    private static let apns: [String: String] = [
        "salvo_apns_requests_total": "APNs answers by pool, HTTP status and reason (empty when accepted).",
        "salvo_apns_request_duration_seconds":
            "APNs request send to answer (or to failure: status_class none), by pool and status class.",
        "salvo_apns_failures_total": "APNs requests that ended without an answer, by pool and code.",
        "salvo_apns_in_flight": "Open APNs streams of the pool.",
        "salvo_apns_queued": "Callers waiting for APNs stream credit.",
        "salvo_apns_stream_credit": "Free APNs stream credit over the pool's ready connections.",
        "salvo_apns_connections": "APNs connections of the pool by state.",
        "salvo_apns_reconnects_total": "APNs connections replaced.",
        "salvo_apns_connect_failures_total": "Failed APNs connection attempts.",
        "salvo_apns_goaways_total": "GOAWAY frames received from APNs.",
        "salvo_apns_replays_total": "APNs requests replayed on another connection after not being processed.",
        "salvo_apns_ping_rtt_seconds": "Keepalive PING round trip to APNs.",
        "salvo_apns_token_refreshes_total": "Provider tokens (JWT) signed, by team and key.",
        "salvo_apns_token_refresh_failures_total": "Provider token signing failures, by team and key.",
    ]

    private static let kafka: [String: String] = [
        "salvo_kafka_produce_failures_total":
            "Feedback, dead-letter and retry records the broker did not acknowledge, by topic.",
        "salvo_kafka_produce_duration_seconds":
            "Produce to broker acknowledgement of feedback, dead-letter and retry records, by topic.",
        "salvo_consumer_rebalances_total":
            "Partition assignments this worker received (one per completed rebalance), by consumer group.",
        "salvo_consumer_assigned_partitions": "Partitions assigned to this worker, by consumer group.",
        "salvo_consumer_commit_duration_seconds":
            "Offset commit round trips to the group coordinator, by consumer group.",
        "salvo_consumer_commit_failures_total":
            "Offset commits that failed (retried at the next interval), by consumer group.",
    ]

    /// Buckets of `salvo_end_to_end_latency_seconds`: from a per-user push answered in
    /// milliseconds to a campaign backlog drained over minutes.
    package static let endToEndLatencyBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(5), .seconds(10),
        .seconds(30), .seconds(60), .seconds(300),
    ]

    /// Buckets of round trips to a remote service (`salvo_apns_ping_rtt_seconds`,
    /// `salvo_apns_request_duration_seconds`, the Kafka commit and produce durations): a healthy
    /// one answers in milliseconds to tens of them; a request times out after 10 s by default.
    package static let roundTripBuckets: [Duration] = [
        .milliseconds(1), .microseconds(2_500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2_500),
        .seconds(5), .seconds(10),
    ]

    /// Timer buckets by family.
    package static let durationBuckets: [String: [Duration]] = [
        "salvo_end_to_end_latency_seconds": endToEndLatencyBuckets,
        "salvo_apns_ping_rtt_seconds": roundTripBuckets,
        "salvo_apns_request_duration_seconds": roundTripBuckets,
        "salvo_consumer_commit_duration_seconds": roundTripBuckets,
        "salvo_kafka_produce_duration_seconds": roundTripBuckets,
    ]
}
