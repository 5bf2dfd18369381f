extension MetricNames {
    /// Every metric family the alert rules and the dashboard use. A check against a running
    /// worker is then `usedByArtifacts().subtracting(exported(prometheusText: scrape))`.
    static func usedByArtifacts() throws -> Set<String> {
        let rules = try RepositoryFiles.yamlDocuments("ops/prometheus/salvo-rules.yaml").first as? [String: Any] ?? [:]
        let dashboard = try RepositoryFiles.json("ops/grafana/salvo-worker.json") as? [String: Any] ?? [:]
        return referenced(inRules: rules).union(referenced(inDashboard: dashboard))
    }

    /// The families docs/metrics.md lists.
    static func documentedInRepository() throws -> Set<String> {
        documented(markdown: try RepositoryFiles.text("docs/metrics.md"))
    }
}
