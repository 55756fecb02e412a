import Foundation
import Testing
@testable import Sluice

/// Transforms (rule 15) and finishing hooks (rule 16) in the typed door.
@Suite struct CustomLogicTests {
    struct Order: Sendable, Equatable {
        var id: Int64 = 0
        var cents: Int64 = 0
        var tags: [String] = []
        var note: String?
        var total = ""
    }

    static func mapping(finish: (@Sendable (inout Order) throws -> Void)? = nil) throws -> Mapping<Order> {
        try Mapping(Order.init, finish: finish) {
            Field("id", \.id)
            Field("price", \.cents, transform: { value in
                guard case .string(let text) = value, text.hasPrefix("$"), let dollars = Decimal(string: String(text.dropFirst())) else {
                    throw MappingFailure("expected a price like \"$1.50\", found \(value)")
                }
                return Int64(truncating: NSDecimalNumber(decimal: dollars * 100))
            })
            Field("tags", \.tags, transform: { value in
                guard case .array(let json) = value else { return nil }
                return (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]) ?? []
            })
            Field("note", \.note, transform: { value in
                if case .string(let text) = value, !text.isEmpty { return text.uppercased() }
                return nil
            })
        }
    }

    func read(_ text: String, mapping: Mapping<Order>, policy: RejectionPolicy = .collect) throws -> (orders: [Order], rejections: [String], statistics: ReadStatistics) {
        let reader = try TypedReader(input: .bytes(Array(text.utf8)), mapping: mapping, options: ReaderOptions(batchCapacity: 2, rejectionPolicy: policy))
        var orders: [Order] = []
        var rejections: [String] = []
        while let batch = try reader.next() {
            orders += batch.models
            rejections += batch.rejections.map { "\($0) | \(String(decoding: $0.rawText, as: UTF8.self))" }
        }
        return (orders, rejections, reader.statistics)
    }

    @Test func transformsConvertReturnNilAndRejectWithTheirMessage() throws {
        let result = try read("""
            {"id":1,"price":"$1.50","tags":["a","b"],"note":"rush"}
            {"id":2,"price":"1.50"}
            {"id":3,"price":"$2","tags":"none","note":""}
            {"id":4,"tags":["x"]}

            """, mapping: try Self.mapping())
        // A missing key leaves the property as the model was made (record 4 has no price); a transform that
        // gives nil for a property that is not optional rejects the record (record 3's tags).
        #expect(result.orders == [
            Order(id: 1, cents: 150, tags: ["a", "b"], note: "RUSH"),
            Order(id: 4, cents: 0, tags: ["x"], note: nil),
        ])
        #expect(result.rejections == [
            #"record 2 (line 2, byte 56): $.price: transform failed: expected a price like "$1.50", found string("1.50") | {"id":2,"price":"1.50"}"#,
            #"record 3 (line 3, byte 80): $.tags: transform failed: the transform gave no value | {"id":3,"price":"$2","tags":"none","note":""}"#,
        ])
        #expect(result.statistics.recordsRead == 4 && result.statistics.recordsMapped == 2 && result.statistics.recordsRejected == 2)
    }

    @Test func aFinishingHookComputesDerivedFieldsAndMayReject() throws {
        let mapping = try Self.mapping { order in
            guard order.cents > 0 else { throw MappingFailure("an order needs a price") }
            order.total = "\(order.cents / 100).\(String(format: "%02d", order.cents % 100))"
        }
        let result = try read("{\"id\":1,\"price\":\"$3.05\"}\n{\"id\":2,\"price\":\"$0\"}\n", mapping: mapping)
        #expect(result.orders.map(\.total) == ["3.05"])
        #expect(result.rejections == [#"record 2 (line 2, byte 25): $: finishing hook failed: an order needs a price | {"id":2,"price":"$0"}"#])
    }

    @Test func underStopALateRejectionEndsTheRunAfterTheModelsBeforeIt() throws {
        let reader = try TypedReader(
            input: .bytes(Array("{\"id\":1,\"price\":\"$1\"}\n{\"id\":2,\"price\":\"x\"}\n{\"id\":3,\"price\":\"$3\"}\n".utf8)),
            mapping: try Self.mapping(), options: ReaderOptions(rejectionPolicy: .stop))
        #expect(try reader.nextModel()?.id == 1)
        #expect(throws: SluiceError.self) { try reader.nextModel() }
        #expect(try reader.nextModel() == nil)
        // Reading stopped at record 2: record 3, mapped in the same batch but never delivered, is not counted.
        #expect(reader.statistics.recordsRead == 2)
        #expect(reader.statistics.recordsMapped == 1)
        #expect(reader.statistics.recordsRejected == 1)
    }
}
