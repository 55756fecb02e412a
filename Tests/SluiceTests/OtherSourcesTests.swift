import Foundation
import Testing
@testable import Sluice

/// Foundation trees (rule 19) and updates in place (rule 7).
@Suite struct OtherSourcesTests {
    struct Person: Sendable, Equatable {
        var id: Int64 = 0
        var name = ""
        var email: String?
        var born: Date?
        var avatar: Data?
        var score = 0.0
    }

    static func mapping() throws -> Mapping<Person> {
        try Mapping(Person.init) {
            Field("id", \.id)
            Field("name", \.name)
            Field("contact.email", \.email)
            Field("born", \.born)
            Field("avatar", \.avatar)
            Field("score", \.score).defaulting(to: 1)
        }
    }

    @Test func mapsAJSONSerializationTree() throws {
        let tree = try JSONSerialization.jsonObject(with: Data(#"{"id":190957570511478800,"name":"Ann","contact":{"email":"a@x"},"score":2.5}"#.utf8))
        let person = try Self.mapping().model(from: tree)
        #expect(person == Person(id: 190_957_570_511_478_800, name: "Ann", email: "a@x", score: 2.5))
    }

    @Test func mapsAPropertyListWithDatesAndData() throws {
        // XML property lists keep whole seconds.
        let plist: [String: Any] = ["id": 3, "name": "Bo", "born": Date(timeIntervalSince1970: 86_400), "avatar": Data([1, 2, 3])]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        let tree = try PropertyListSerialization.propertyList(from: data, format: nil)
        let person = try Self.mapping().model(from: tree)
        #expect(person == Person(id: 3, name: "Bo", born: Date(timeIntervalSince1970: 86_400), avatar: Data([1, 2, 3]), score: 1))
        let withFraction = try Self.mapping().model(from: ["id": 4, "name": "Cy", "born": Date(timeIntervalSince1970: 86_400.25)])
        #expect(withFraction.born == Date(timeIntervalSince1970: 86_400.25))
    }

    @Test func mapsArraysOfRecordsAndRejectsLikeAnyInput() throws {
        let people = try Self.mapping().models(from: [["id": 1, "name": "A"], ["id": 2, "name": "B"]])
        #expect(people.map(\.name) == ["A", "B"])
        #expect(throws: SluiceError.self) { try Self.mapping().model(from: ["id": "x", "name": "A"]) }
        #expect(throws: SluiceError.self) { try Self.mapping().model(from: ["id": 1, "name": NSObject()]) }
    }

    @Test func dynamicSchemasReadFoundationTreesToo() throws {
        let result = try transcript(of: try Input.foundation([["v": 1], ["v": 2]]), fields: [FieldSpec(name: "v", type: .int64)], options: ReaderOptions(shape: .array))
        #expect(result.rows.map { $0.components(separatedBy: " ")[1] } == ["v=1", "v=2"])
    }

    @Test func updateInPlaceTouchesOnlyWhatTheRecordHoldsAndSaysWhatChanged() throws {
        var person = Person(id: 1, name: "Ann", email: "a@x", born: nil, avatar: nil, score: 5)
        let changed = try Self.mapping().update(&person, from: .bytes(Array(#"{"name":"Ann","contact":{"email":null},"score":6}"#.utf8)))
        #expect(person == Person(id: 1, name: "Ann", email: nil, born: nil, avatar: nil, score: 6))
        #expect(changed.count == 2)
        #expect(changed.contains { $0 == \Person.email as PartialKeyPath<Person> })
        #expect(changed.contains { $0 == \Person.score as PartialKeyPath<Person> })
        let unchanged = try Self.mapping().update(&person, from: .foundation(["id": 1, "name": "Ann"]))
        #expect(unchanged.isEmpty)
    }

    @Test func updateInPlaceIsAllOrNothing() throws {
        var person = Person(id: 1, name: "Ann", score: 5)
        let before = person
        do {
            try Self.mapping().update(&person, from: .bytes(Array(#"{"score":7,"name":null}"#.utf8)))
            Issue.record("expected a rejection")
        } catch {
            #expect("\(error)" == #"rejected record 1 (line 1, byte 0): $.name: expected string, found null"#)
        }
        do {
            try Self.mapping().update(&person, from: .bytes(Array(#"{"score":"high","id":1.5}"#.utf8)))
            Issue.record("expected a rejection")
        } catch {
            #expect("\(error)" == #"rejected record 1 (line 1, byte 0): $.score: expected double, found string "high"; $.id: expected int64 (an integer), found number 1.5"#)
        }
        #expect(person == before)
    }

    @Test func updateInPlaceAppliesDefaultsRequiredAndTheFinishingHook() throws {
        struct Account: Sendable, Equatable {
            var plan = ""
            var nickname: String?
            var label = ""
        }
        struct Refusal: Error, CustomStringConvertible { var description: String { "a free plan takes no nickname" } }
        let mapping = try Mapping(Account.init, finish: { account in
            if account.plan == "free" && account.nickname != nil { throw Refusal() }
            account.label = account.plan + (account.nickname.map { "/" + $0 } ?? "")
        }) {
            Field("plan", \.plan).defaulting(to: "free")
            Field("nickname", \.nickname).validated(.required)
        }
        // A missing key leaves its property alone, also when a validator saw the field's default.
        let validated = try Mapping(Account.init) {
            Field("plan", \.plan).defaulting(to: "free").validated(.minLength(3))
            Field("nickname", \.nickname)
        }
        var kept = Account(plan: "pro", nickname: nil, label: "")
        #expect(try validated.update(&kept, from: .bytes(Array(#"{"nickname":"n"}"#.utf8))).count == 1)
        #expect(kept == Account(plan: "pro", nickname: "n", label: ""))

        var account = Account(plan: "pro", nickname: "a", label: "")
        // null gives the default; a missing key leaves the property; the hook runs on the result.
        #expect(try mapping.update(&account, from: .bytes(Array(#"{"plan":"gold"}"#.utf8))).count == 1)
        #expect(account == Account(plan: "gold", nickname: "a", label: "gold/a"))
        let before = account
        #expect(throws: SluiceError.self) { try mapping.update(&account, from: .bytes(Array(#"{"nickname":null}"#.utf8))) }
        do {
            try mapping.update(&account, from: .bytes(Array(#"{"plan":null}"#.utf8)))
            Issue.record("expected the hook to refuse")
        } catch {
            #expect("\(error)" == #"rejected record 1 (line 1, byte 0): $: finishing hook failed: a free plan takes no nickname"#)
        }
        #expect(account == before)
    }
}
