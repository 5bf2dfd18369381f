import Testing

@testable import SalvoWorker

/// The app table finds the same values by comparison (few apps) as by hashing (many).
@Suite struct AppTableTests {
    @Test func fewAppsAreFoundByComparison() {
        let table = AppTable(["news": 1, "shop": 2, "a-much-longer-bundle-style-app-name": 3])
        #expect(table["news"] == 1)
        #expect(table["shop"] == 2)
        #expect(table["a-much-longer-bundle-style-app-name"] == 3)
        #expect(table["new"] == nil)
        #expect(table[""] == nil)
    }

    @Test func manyAppsFallBackToHashingWithTheSameAnswers() {
        let count = AppTable<Int>.linearLimit + 5
        let table = AppTable(Dictionary(uniqueKeysWithValues: (0..<count).map { ("app\($0)", $0) }))
        for index in 0..<count { #expect(table["app\(index)"] == index) }
        #expect(table["app\(count)"] == nil)
    }
}
