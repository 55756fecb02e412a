import Testing
@testable import Sluice

/// Naming conventions, unmapped keys (counted, rejected in strict mode), and ignored paths.
@Suite struct MappingOptionsTests {
    @Test(arguments: [
        ("idStr", "id_str"), ("createdTimeAt", "created_time_at"), ("userID", "user_id"), ("URLString", "url_string"),
        ("id", "id"), ("utf8Text", "utf8_text"), ("already_snake", "already_snake"), ("HTTPStatus2xx", "http_status2xx"),
    ])
    func snakeCaseConvertsNames(_ name: String, _ key: String) {
        #expect(NamingConvention.snakeCase().key(forName: name) == key)
    }

    @Test func aConfigurableSeparator() {
        #expect(NamingConvention.snakeCase(separator: "-").key(forName: "createdTimeAt") == "created-time-at")
    }

    @Test func pathLessFieldsReadKeysByConventionAndExplicitPathsWin() throws {
        let options = MappingOptions(naming: .snakeCase())
        let schema = try MappingSchema(fields: [
            FieldSpec(name: "idStr", type: .string),
            FieldSpec(name: "createdTimeAt", type: .int64),
            FieldSpec(name: "userName", path: "user.name", type: .string),
        ], options: options)
        #expect(schema.fields.map(\.path) == ["id_str", "created_time_at", "user.name"])
        let result = try transcript(of: #"{"id_str":"7","created_time_at":5,"user":{"name":"A"},"userName":"no"}"# + "\n", fields: schema.fields)
        #expect(result.rows == [#"#1@1:0 idStr="7" createdTimeAt=5 userName="A""#])
    }

    @Test func typedFieldsWithoutPathsUsePropertyNames() throws {
        struct Address: Sendable { var city = "" }
        struct Tweet: Sendable { var idStr = ""; var retweetCount: Int64 = 0; var address = Address(); var text = "" }
        let mapping = try Mapping(Tweet.init, options: MappingOptions(naming: .snakeCase())) {
            Field(\.idStr)
            Field(\.retweetCount)
            Field(\.address.city)
            Field("full_text", \.text)
        }
        let reader = try TypedReader(input: .bytes(Array(#"{"id_str":"1","retweet_count":3,"address":{"city":"Oslo"},"full_text":"hi"}"#.utf8)), mapping: mapping)
        let tweet = try #require(try reader.nextModel())
        #expect(tweet.idStr == "1" && tweet.retweetCount == 3 && tweet.address.city == "Oslo" && tweet.text == "hi")
    }

    @Test func unmappedKeysAreCountedByKeyPath() throws {
        let schema = try MappingSchema(fields: [FieldSpec(name: "id", type: .int64), FieldSpec(name: "name", path: "user.name", type: .string)])
        let text = """
            {"id":1,"source":"web","user":{"name":"A","bio":{"long":"x"}},"tags":[1]}
            {"source":"app","id":2,"user":{"name":"B"},"extra_key_that_is_longer_than_thirty_two_bytes":true}
            {"id":3,"user":{"name":"C","bio":null}}

            """
        let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: schema)
        while try reader.next() != nil {}
        #expect(reader.unmappedKeys == ["$.source": 2, "$.user.bio": 2, "$.tags": 1, "$.extra_key_that_is_longer_than_thirty_two_bytes": 1])
    }

    /// A json field reads everything inside its value, so no key there is unmapped, nor rejected in strict mode,
    /// also where other fields read beneath it (`user` as json, `user.name` as string), with either tokenizer.
    @Test(arguments: [TokenizerChoice.simdjson, .yajl])
    func keysInsideAJsonFieldAreRead(_ tokenizer: TokenizerChoice) throws {
        let fields = [FieldSpec(name: "id", type: .int64), FieldSpec(name: "user", type: .json), FieldSpec(name: "name", path: "user.name", type: .string),
                      FieldSpec(name: "first", path: "user.tags.0", type: .string, isOptional: true)]
        let text = """
            {"id":1,"user":{"name":"A","bio":{"long":"x"},"tags":["t",{"k":1}]},"source":"web"}
            {"id":2,"user":{"age":3,"name":"B"}}

            """
        for strict in [false, true] {
            var options = ReaderOptions(rejectionPolicy: .collect)
            options.tokenizer = tokenizer
            let schema = try MappingSchema(fields: fields, options: MappingOptions(unmappedKeys: strict ? .reject : .ignore))
            let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: schema, options: options)
            var rows = 0
            var rejections: [Rejection] = []
            while let batch = try reader.next() {
                rows += batch.count
                rejections += batch.rejections
            }
            #expect(reader.unmappedKeys == ["$.source": 1], "\(tokenizer), strict: \(strict)")
            #expect(rows == (strict ? 1 : 2) && rejections.count == (strict ? 1 : 0), "\(tokenizer), strict: \(strict): \(rejections)")
            #expect(rejections.allSatisfy { $0.failures.map(\.keyPath) == ["$.source"] }, "\(rejections)")
        }
    }

    /// With several workers, chunks are mapped ahead of the consumer: the counts must cover the records handed out
    /// so far (those ``ColumnarReader/statistics`` counts), never those of chunks mapped and not yet delivered.
    @Test func unmappedKeysCoverTheRecordsCountedSoFarWithAnyNumberOfWorkers() throws {
        let schema = try MappingSchema(fields: [FieldSpec(name: "id", type: .int64)])
        // Every record holds `extra`; every third also `rare`, at a key position the cache then gives to `extra`
        // again (a sighting handed on from the cache on eviction, and one still held in it, both count).
        var text = ""
        for id in 1...30_000 { text += id % 3 == 0 ? #"{"id":\#(id),"rare":1,"extra":"x"}"# + "\n" : #"{"id":\#(id),"extra":"x"}"# + "\n" }
        for workers in [1, 2, 3] {
            let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: schema,
                                            options: ReaderOptions(batchCapacity: 1000, workers: workers, chunkSize: 64 << 10))
            _ = try reader.next()
            let read = reader.statistics.recordsRead
            #expect(read > 0 && read < 30_000, "workers: \(workers)")
            #expect(reader.unmappedKeys == ["$.extra": read, "$.rare": read / 3], "workers: \(workers)")
            while try reader.next() != nil {}
            #expect(reader.unmappedKeys == ["$.extra": 30_000, "$.rare": 10_000], "workers: \(workers)")
        }
    }

    @Test func strictModeRejectsRecordsWithKeysNoFieldReadsUnlessIgnored() throws {
        let schema = try MappingSchema(
            fields: [FieldSpec(name: "id", type: .int64)],
            options: MappingOptions(unmappedKeys: .reject, ignoredPaths: ["meta"]))
        let result = try transcript(of: "{\"id\":1,\"meta\":{\"x\":1}}\n{\"id\":2,\"surprise\":true,\"other\":[]}\n", fields: schema.fields, options: ReaderOptions(rejectionPolicy: .collect), schemaOptions: schema.options)
        #expect(result.rows == ["#1@1:0 id=1"])
        #expect(result.rejections == [
            "record 2 (line 2, byte 24): $.surprise: expected only keys the mapping reads, found a key it does not read; $.other: expected only keys the mapping reads, found a key it does not read",
        ])
    }

    @Test func anIgnoredNodeCoversWhatNoFieldReadsBeneathIt() throws {
        let schema = try MappingSchema(
            fields: [FieldSpec(name: "name", path: "user.name", type: .string)],
            options: MappingOptions(unmappedKeys: .reject, ignoredPaths: ["user"]))
        let text = #"{"user":{"name":"a","bio":"x","stats":{"n":1}}}"# + "\n" + #"{"user":{"name":"b"},"other":1}"# + "\n"
        let result = try transcript(of: text, fields: schema.fields, schemaOptions: schema.options)
        #expect(result.rows.count == 1)
        #expect(result.rejections == ["record 2 (line 2, byte 48): $.other: expected only keys the mapping reads, found a key it does not read"])
    }

    @Test func wildcardsIgnoreTheKeysDirectlyInANodeOrEverythingBeneathIt() throws {
        let fields = [FieldSpec(name: "text", path: "entities.hashtags.*.text", type: .string), FieldSpec(name: "b", path: "meta.a.b", type: .int64, isOptional: true)]
        let text = #"{"entities":{"hashtags":[{"text":"t","indices":[1]}],"urls":[]},"meta":{"a":{"c":1},"z":2}}"# + "\n"
        func rejections(_ ignored: [String]) throws -> [String] {
            let schema = try MappingSchema(fields: fields, options: MappingOptions(unmappedKeys: .reject, ignoredPaths: ignored))
            let reader = try ColumnarReader(input: .bytes(Array(text.utf8)), schema: schema, options: ReaderOptions(rejectionPolicy: .collect))
            var failures: [String] = []
            while let batch = try reader.next() { failures += batch.rejections.flatMap { $0.failures.map(\.keyPath) } }
            #expect(reader.unmappedKeys.keys.sorted() == failures.sorted())
            return failures
        }
        #expect(try rejections([]) == ["$.entities.hashtags.*.indices", "$.entities.urls", "$.meta.a.c", "$.meta.z"])
        #expect(try rejections(["entities.*", "meta.*"]) == ["$.entities.hashtags.*.indices", "$.meta.a.c"])
        #expect(try rejections(["entities.**", "meta"]) == [])
        #expect(try rejections(["entities.hashtags.*.*", "meta.a.**"]) == ["$.entities.urls", "$.meta.z"])
        // A key named `**` is not the wildcard when escaped.
        #expect(try rejections(["entities.**", "meta.a.\\**", "meta.z"]) == ["$.meta.a.c"])
    }

    @Test func anIgnoredPathUnderEveryElementCoversTheElementsAFieldReadsByIndexToo() throws {
        let schema = try MappingSchema(
            fields: [FieldSpec(name: "first", path: "tags.0.text", type: .string)],
            options: MappingOptions(unmappedKeys: .reject, ignoredPaths: ["tags.*.*"]))
        let result = try transcript(of: #"{"tags":[{"text":"a","size":1},{"text":"b","size":2}]}"# + "\n", fields: schema.fields, schemaOptions: schema.options)
        #expect(result.rows == [#"#1@1:0 first="a""#])
    }

    @Test func aNodeOnlyAnIgnoredPathReachesTakesAValueOfAnyShape() throws {
        let schema = try MappingSchema(
            fields: [FieldSpec(name: "id", type: .int64)],
            options: MappingOptions(unmappedKeys: .reject, ignoredPaths: ["meta.x", "tags.*.*"]))
        let text = #"{"id":1,"meta":5,"tags":{"a":1}}"# + "\n" + #"{"id":2,"meta":{"x":[1]},"tags":[{"b":2}]}"# + "\n"
        let result = try transcript(of: text, fields: schema.fields, schemaOptions: schema.options)
        #expect(result.rows.count == 2 && result.rejections.isEmpty)
    }

    @Test func mappingFilesDeclareTheOptions() throws {
        let schema = try MappingSchema(mappingText: """
            naming: {convention: snake_case, separator: "-"}
            unmapped: reject
            ignore: [links]
            fields:
              - {name: userId, type: int64}
            """)
        #expect(schema.fields.map(\.path) == ["user-id"])
        #expect(schema.options == MappingOptions(unmappedKeys: .reject, ignoredPaths: ["links"], naming: .snakeCase(separator: "-")))
        let reader = try ColumnarReader(input: .bytes(Array(#"{"user-id":4,"links":[1]}"#.utf8)), schema: schema)
        let batch = try #require(try reader.next())
        #expect(batch.column(0).int64(0) == 4)
        #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "naming: camel\nfields: [{name: a, type: int64}]") }
        #expect(throws: SluiceError.self) { try MappingSchema(mappingText: "unmapped: maybe\nfields: [{name: a, type: int64}]") }
    }

    /// A naming separator of '.' would read `createdTimeAt` from the one key "created.time.at", silently, where the
    /// user most likely meant nested keys: a mapping problem, in a file and in Swift alike.
    @Test func aNamingSeparatorOfADotIsAMappingProblem() throws {
        let text = "naming: {convention: snake_case, separator: \".\"}\nfields: [{name: createdTimeAt, type: string}]"
        #expect { try MappingSchema(mappingText: text) } throws: { error in
            guard case SluiceError.invalidMapping(let problems) = error else { return false }
            return problems.contains { $0.message.hasPrefix("naming separator '.': '.' separates the keys of a key path") }
        }
        #expect(throws: SluiceError.self) {
            try MappingSchema(fields: [FieldSpec(name: "createdTimeAt", type: .string)], options: MappingOptions(naming: .snakeCase(separator: "_.")))
        }
        // The nested keys are read with a path, and a key holding dots with escaped dots.
        let schema = try MappingSchema(mappingText: "fields:\n  - {name: nested, path: created.time.at, type: string}\n  - {name: dotted, path: 'created\\.time\\.at', type: string}\n")
        let reader = try ColumnarReader(input: .bytes(Array(#"{"created.time.at":"dotted","created":{"time":{"at":"nested"}}}"#.utf8)), schema: schema)
        let batch = try #require(try reader.next())
        #expect(batch.column(0).string(0) == "nested" && batch.column(1).string(0) == "dotted")
    }
}
