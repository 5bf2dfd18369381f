import NIOCore

/// Reads records of the retry topic (written by ``RetryRecord``): a job, checked by the same rules
/// as any job, plus its `retry` member. A record without a valid `retry` is rejected
/// (`invalid_retry`) and dead-lettered like any bad job.
package struct RetryRecordDecoder: Sendable {
    package let jobDecoder: JobDecoder

    package init(jobDecoder: JobDecoder) {
        self.jobDecoder = jobDecoder
    }

    package func decode(_ message: ByteBuffer) -> Result<RetryJob, JobRejection> {
        var fields = JobFields()
        return Result { () throws(JobRejection) in
            let job = try jobDecoder.decode(message, into: &fields, readsRetry: true)
            guard let attempt = fields.retry?.attempt, let dueAt = fields.retry?.dueAtMilliseconds else {
                throw JobRejection(
                    .invalidRetry, "a retry record needs retry.attempt and retry.due_at_ms", jobID: job.id, app: job.app
                )
            }
            return RetryJob(job: job, attempt: attempt, dueAt: UTCTimestamp(millisecondsSince1970: dueAt))
        }
    }
}
