// The OpenAPI 3 document of every route of `locsim serve`: what `GET /openapi.json` answers and
// schemathesis checks the server against. The JSON between the delimiters is the document itself:
// edit it here, then run `python3 scripts/openapi-yaml.py` to write docs/openapi.yaml from it (the
// tests fail when the two differ, or when this is not valid JSON).
//
// A string literal rather than a SwiftPM resource: `.embedInCode` turns a file into an array
// literal of its bytes, and this document's 106,000 took 26 s to compile in a debug build (a
// string literal of it: 0.2 s; docs/development/testing.md, "Where the build's time goes").

extension NearbyRoutes {
    static let openAPIDocument = #"""
{
  "openapi": "3.0.3",
  "info": {
    "title": "locsim serve",
    "version": "0.1.0",
    "description": "`locsim serve`: the game's nearby-places endpoint answered offline, with operations routes, the fetch-rule audit, and (with `--player`) the simulated players' control API, event streams and live map.\n\n**Authentication.** Started with `--token T` (or `--token-file`, or `LOCSIM_TOKEN`), every route except `/healthz`, `/openapi.json` and the live map page `/` needs `Authorization: Bearer T`; the scheme word is case-insensitive. With `--accept-any-token` any well-formed bearer token is admitted and a request without one is refused. Without either option, anonymous calls are admitted everywhere and no route answers 401. A refused call is a 401 with `WWW-Authenticate: Bearer`.\n\n**Errors.** Every error is JSON, `{\"error\":{\"code\":\"...\",\"message\":\"...\",\"parameter\":\"...\"}}` (`parameter` only when one input is to blame). A path that no route serves is a 404; a method a path does not take is a 405 with `Allow` (on the nearby, operations and audit routes the method is checked before the token, on `/players...` after it). Before any route sees a request, the connection itself may answer and then close: 400 for bytes that are not HTTP/1.1, 431 for headers over 80 KB, 408 for a request head not complete within --header-timeout, and 503 (`Retry-After: 1`) beyond --max-connections; those are not repeated under each operation.\n\n**HEAD** is answered wherever GET is, with the same status and headers and no body.\n\n**Compression.** Any whole body of 1 KiB or more is gzipped when the request's Accept-Encoding admits gzip (`Content-Encoding: gzip`), and says `Vary: Accept-Encoding` either way. Event streams are never compressed.\n"
  },
  "servers": [
    {
      "url": "http://127.0.0.1:8080",
      "description": "The default address of `locsim serve`."
    }
  ],
  "tags": [
    {
      "name": "nearby",
      "description": "The game's nearby-places contract."
    },
    {
      "name": "operations",
      "description": "Health and metrics."
    },
    {
      "name": "audit",
      "description": "The fetch-rule audit of nearby requests."
    },
    {
      "name": "contract",
      "description": "This document."
    },
    {
      "name": "players",
      "description": "The simulated players' control API and event streams (`serve --player`)."
    },
    {
      "name": "live-map",
      "description": "The live map page."
    }
  ],
  "security": [
    {
      "bearerAuth": []
    }
  ],
  "paths": {
    "/locations/nearby": {
      "get": {
        "tags": [
          "nearby"
        ],
        "operationId": "getNearbyLocations",
        "summary": "Places near a point, nearest first (the game's contract).",
        "description": "Answers the places within `radius` metres of (`lat`, `lng`), nearest first. Parameters are checked in the order lat, lng, radius, limit, and the first bad one is the 400. Other query parameters are ignored (a cache buster), except one surely meant as these (`lon`, `long`, `longitude`, `latitude`, a name in other letter case such as `LIMIT`), which is a 400 naming the one meant. Every valid request is judged by the fetch-rule audit (see GET /audit). Needs `Authorization: Bearer <token>` only when the server was started with --token (or --accept-any-token); otherwise anonymous calls are admitted. Injected faults apply here only: --latency/--latency-jitter delay the answer, --fail-rate answers 500 or 503 (`injected_failure`), --timeout-rate holds the request until the client leaves (or shutdown: 503), and a --script step may answer any status 200-599, with the server's error body or with a body of its own sent as it is (such scripted answers can fall outside this document).",
        "parameters": [
          {
            "$ref": "#/components/parameters/Lat"
          },
          {
            "$ref": "#/components/parameters/Lng"
          },
          {
            "$ref": "#/components/parameters/Radius"
          },
          {
            "$ref": "#/components/parameters/Limit"
          },
          {
            "$ref": "#/components/parameters/Session"
          },
          {
            "$ref": "#/components/parameters/PlayerID"
          },
          {
            "$ref": "#/components/parameters/AuditSession"
          }
        ],
        "responses": {
          "200": {
            "description": "The places.",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/NearbyResponse"
                },
                "example": {
                  "locations": [
                    {
                      "id": "3732bd1f-107e-5c88-ab5f-4bdd60241d60",
                      "name": "Mission Dolores",
                      "lat": 37.7644,
                      "lng": -122.4269,
                      "location_type": "church",
                      "level": 3
                    }
                  ]
                }
              }
            }
          },
          "400": {
            "description": "A missing, malformed, non-finite, out-of-range or repeated parameter, or a radius over --max-radius; `parameter` is `lat`, `lng`, `radius` or `limit`.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "description": "A bad nearby query parameter.",
                  "required": [
                    "error"
                  ],
                  "additionalProperties": false,
                  "properties": {
                    "error": {
                      "type": "object",
                      "required": [
                        "code",
                        "message",
                        "parameter"
                      ],
                      "additionalProperties": false,
                      "properties": {
                        "code": {
                          "type": "string",
                          "enum": [
                            "bad_request"
                          ],
                          "description": "What went wrong, as a stable machine-readable word."
                        },
                        "message": {
                          "type": "string",
                          "description": "What went wrong, for people. Never contains the bearer token."
                        },
                        "parameter": {
                          "type": "string",
                          "description": "The query parameter, header, body field or path part to blame.",
                          "enum": [
                            "lat",
                            "lng",
                            "radius",
                            "limit"
                          ]
                        }
                      }
                    }
                  }
                },
                "example": {
                  "error": {
                    "code": "bad_request",
                    "message": "lat must be a finite number of degrees, got nan",
                    "parameter": "lat"
                  }
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "429": {
            "description": "Only from a --script step with status 429 and no body (any other scripted status of 400 or more is answered the same way).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/InjectedFailureError"
                }
              }
            }
          },
          "500": {
            "description": "An injected failure (--fail-rate, or a --script step).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/InjectedFailureError"
                }
              }
            }
          },
          "503": {
            "description": "The place backend failed (`unavailable`; the reason is in the server's log, not here), an injected failure (`injected_failure`), or a request held by a timeout fault released because the server is shutting down (`unavailable`, no Retry-After).",
            "headers": {
              "Retry-After": {
                "$ref": "#/components/headers/Retry-After-Optional"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "oneOf": [
                    {
                      "$ref": "#/components/schemas/UnavailableError"
                    },
                    {
                      "$ref": "#/components/schemas/InjectedFailureError"
                    }
                  ]
                }
              }
            }
          }
        }
      },
      "head": {
        "tags": [
          "nearby"
        ],
        "operationId": "headNearbyLocations",
        "summary": "The same as getNearbyLocations, headers only.",
        "description": "Answered exactly as the GET (the same work, status and headers, `Content-Length` included), without the body.",
        "responses": {
          "200": {
            "description": "The places. (HEAD: headers only, no body.)",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            }
          },
          "400": {
            "description": "A missing, malformed, non-finite, out-of-range or repeated parameter, or a radius over --max-radius; `parameter` is `lat`, `lng`, `radius` or `limit`. (HEAD: headers only, no body.)"
          },
          "401": {
            "description": "Only when the server runs with --token (or --accept-any-token): the bearer token is missing or not admitted. (HEAD: headers only, no body.)",
            "headers": {
              "WWW-Authenticate": {
                "$ref": "#/components/headers/WWW-Authenticate"
              }
            }
          },
          "429": {
            "description": "Only from a --script step with status 429 and no body (any other scripted status of 400 or more is answered the same way). (HEAD: headers only, no body.)"
          },
          "500": {
            "description": "An injected failure (--fail-rate, or a --script step). (HEAD: headers only, no body.)"
          },
          "503": {
            "description": "The place backend failed (`unavailable`; the reason is in the server's log, not here), an injected failure (`injected_failure`), or a request held by a timeout fault released because the server is shutting down (`unavailable`, no Retry-After). (HEAD: headers only, no body.)",
            "headers": {
              "Retry-After": {
                "$ref": "#/components/headers/Retry-After-Optional"
              }
            }
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/Lat"
          },
          {
            "$ref": "#/components/parameters/Lng"
          },
          {
            "$ref": "#/components/parameters/Radius"
          },
          {
            "$ref": "#/components/parameters/Limit"
          },
          {
            "$ref": "#/components/parameters/Session"
          },
          {
            "$ref": "#/components/parameters/PlayerID"
          },
          {
            "$ref": "#/components/parameters/AuditSession"
          }
        ]
      }
    },
    "/healthz": {
      "get": {
        "tags": [
          "operations"
        ],
        "operationId": "getHealth",
        "summary": "Whether the place backend answers.",
        "description": "`ok` and a newline when the backend answers; with several backends (PostGIS replicas) each one that is down adds a line `degraded: ...`. Which backend failed and why is shown only to callers the token admits (everyone when the server runs without --token); others read a summary. Open to everyone: no token needed even when the server runs with --token.",
        "responses": {
          "200": {
            "description": "The backend answers (possibly degraded).",
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string",
                  "pattern": "^ok\\n"
                },
                "example": "ok\n"
              }
            }
          },
          "503": {
            "description": "No backend answers (`unavailable`).",
            "headers": {
              "Retry-After": {
                "$ref": "#/components/headers/Retry-After"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/UnavailableError"
                }
              }
            }
          }
        },
        "security": []
      },
      "head": {
        "tags": [
          "operations"
        ],
        "operationId": "headHealth",
        "summary": "The same as getHealth, headers only.",
        "description": "Answered exactly as the GET (the same work, status and headers, `Content-Length` included), without the body.",
        "responses": {
          "200": {
            "description": "The backend answers (possibly degraded). (HEAD: headers only, no body.)"
          },
          "503": {
            "description": "No backend answers (`unavailable`). (HEAD: headers only, no body.)",
            "headers": {
              "Retry-After": {
                "$ref": "#/components/headers/Retry-After"
              }
            }
          }
        },
        "security": []
      }
    },
    "/metrics": {
      "get": {
        "tags": [
          "operations"
        ],
        "operationId": "getMetrics",
        "summary": "Counters in the Prometheus text format.",
        "description": "Prometheus text exposition format 0.0.4 (`Content-Type: text/plain; version=0.0.4; charset=utf-8`): requests by route and status, durations, places served, audit violations and clients, open, rejected and abandoned connections. Needs `Authorization: Bearer <token>` only when the server was started with --token (or --accept-any-token); otherwise anonymous calls are admitted.",
        "responses": {
          "200": {
            "description": "The metrics.",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            },
            "content": {
              "text/plain": {
                "schema": {
                  "type": "string",
                  "pattern": "^# HELP locsim_http_requests_total "
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          }
        }
      },
      "head": {
        "tags": [
          "operations"
        ],
        "operationId": "headMetrics",
        "summary": "The same as getMetrics, headers only.",
        "description": "Answered exactly as the GET (the same work, status and headers, `Content-Length` included), without the body.",
        "responses": {
          "200": {
            "description": "The metrics. (HEAD: headers only, no body.)",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            }
          },
          "401": {
            "description": "Only when the server runs with --token (or --accept-any-token): the bearer token is missing or not admitted. (HEAD: headers only, no body.)",
            "headers": {
              "WWW-Authenticate": {
                "$ref": "#/components/headers/WWW-Authenticate"
              }
            }
          }
        }
      }
    },
    "/audit": {
      "get": {
        "tags": [
          "audit"
        ],
        "operationId": "getAudit",
        "summary": "The fetch-rule audit: totals and one page of timelines.",
        "description": "Every count covers the whole audit; the timelines hold one page: the entries after `cursor`, at most `limit` of them, oldest first over all clients. Read every page by passing each answer's `next` as the following `cursor` until it is null. The cursor is checked before the limit. Needs `Authorization: Bearer <token>` only when the server was started with --token (or --accept-any-token); otherwise anonymous calls are admitted.",
        "parameters": [
          {
            "$ref": "#/components/parameters/Cursor"
          },
          {
            "$ref": "#/components/parameters/AuditLimit"
          }
        ],
        "responses": {
          "200": {
            "description": "The audit.",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/AuditReport"
                }
              }
            }
          },
          "400": {
            "description": "`cursor` or `limit` is not a whole number in range.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "description": "A bad audit page parameter.",
                  "required": [
                    "error"
                  ],
                  "additionalProperties": false,
                  "properties": {
                    "error": {
                      "type": "object",
                      "required": [
                        "code",
                        "message",
                        "parameter"
                      ],
                      "additionalProperties": false,
                      "properties": {
                        "code": {
                          "type": "string",
                          "enum": [
                            "bad_request"
                          ],
                          "description": "What went wrong, as a stable machine-readable word."
                        },
                        "message": {
                          "type": "string",
                          "description": "What went wrong, for people. Never contains the bearer token."
                        },
                        "parameter": {
                          "type": "string",
                          "description": "The query parameter, header, body field or path part to blame.",
                          "enum": [
                            "cursor",
                            "limit"
                          ]
                        }
                      }
                    }
                  }
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          }
        }
      },
      "head": {
        "tags": [
          "audit"
        ],
        "operationId": "headAudit",
        "summary": "The same as getAudit, headers only.",
        "description": "Answered exactly as the GET (the same work, status and headers, `Content-Length` included), without the body.",
        "responses": {
          "200": {
            "description": "The audit. (HEAD: headers only, no body.)",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            }
          },
          "400": {
            "description": "`cursor` or `limit` is not a whole number in range. (HEAD: headers only, no body.)"
          },
          "401": {
            "description": "Only when the server runs with --token (or --accept-any-token): the bearer token is missing or not admitted. (HEAD: headers only, no body.)",
            "headers": {
              "WWW-Authenticate": {
                "$ref": "#/components/headers/WWW-Authenticate"
              }
            }
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/Cursor"
          },
          {
            "$ref": "#/components/parameters/AuditLimit"
          }
        ]
      }
    },
    "/audit/reset": {
      "post": {
        "tags": [
          "audit"
        ],
        "operationId": "resetAudit",
        "summary": "Start the fetch rule afresh for every client, or for one.",
        "description": "Each restarted client's next nearby request is judged as a first request. Verdicts and timelines so far are kept and still count. No request body is read. Needs `Authorization: Bearer <token>` only when the server was started with --token (or --accept-any-token); otherwise anonymous calls are admitted.",
        "parameters": [
          {
            "$ref": "#/components/parameters/AuditClient"
          }
        ],
        "responses": {
          "200": {
            "description": "Restarted.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/AuditResetResult"
                }
              }
            }
          },
          "400": {
            "description": "`client` is empty.",
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "description": "An empty client name.",
                  "required": [
                    "error"
                  ],
                  "additionalProperties": false,
                  "properties": {
                    "error": {
                      "type": "object",
                      "required": [
                        "code",
                        "message",
                        "parameter"
                      ],
                      "additionalProperties": false,
                      "properties": {
                        "code": {
                          "type": "string",
                          "enum": [
                            "bad_request"
                          ],
                          "description": "What went wrong, as a stable machine-readable word."
                        },
                        "message": {
                          "type": "string",
                          "description": "What went wrong, for people. Never contains the bearer token."
                        },
                        "parameter": {
                          "type": "string",
                          "description": "The query parameter, header, body field or path part to blame.",
                          "enum": [
                            "client"
                          ]
                        }
                      }
                    }
                  }
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "description": "The audit has no client of that name (`parameter` is `client`).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/NotFoundError"
                },
                "example": {
                  "error": {
                    "code": "not_found",
                    "message": "the audit has no client player:bob",
                    "parameter": "client"
                  }
                }
              }
            }
          }
        }
      }
    },
    "/openapi.json": {
      "get": {
        "tags": [
          "contract"
        ],
        "operationId": "getOpenAPIDocument",
        "summary": "This document.",
        "description": "The OpenAPI 3.0 description of every route, as compiled into the server. Open to everyone: no token needed even when the server runs with --token.",
        "responses": {
          "200": {
            "description": "The OpenAPI document.",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "type": "object",
                  "required": [
                    "openapi",
                    "info",
                    "paths"
                  ]
                }
              }
            }
          }
        },
        "security": []
      },
      "head": {
        "tags": [
          "contract"
        ],
        "operationId": "headOpenAPIDocument",
        "summary": "The same as getOpenAPIDocument, headers only.",
        "description": "Answered exactly as the GET (the same work, status and headers, `Content-Length` included), without the body.",
        "responses": {
          "200": {
            "description": "The OpenAPI document. (HEAD: headers only, no body.)",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            }
          }
        },
        "security": []
      }
    },
    "/": {
      "get": {
        "tags": [
          "live-map"
        ],
        "operationId": "getLiveMap",
        "summary": "The live map of the players (an HTML page).",
        "description": "One self-contained page that draws every player from GET /players/events and calls POST /players/{name}/control. It holds no data itself, so it needs no token; with --token, open it as `/#token=T` and the page sends the token on its own calls. Any request body is read (and must be at most 16 MiB) before the page is answered. Open to everyone: no token needed even when the server runs with --token.",
        "responses": {
          "200": {
            "description": "The page.",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            },
            "content": {
              "text/html": {
                "schema": {
                  "type": "string"
                }
              }
            }
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        },
        "security": []
      },
      "head": {
        "tags": [
          "live-map"
        ],
        "operationId": "headLiveMap",
        "summary": "The same as getLiveMap, headers only.",
        "description": "Answered exactly as the GET (the same work, status and headers, `Content-Length` included), without the body.",
        "responses": {
          "200": {
            "description": "The page. (HEAD: headers only, no body.)",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            }
          },
          "413": {
            "description": "The request body is over 16 MiB or could not be read (code `bad_request`, parameter `body`). The players' routes and the live map read any body before answering. (HEAD: headers only, no body.)"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        },
        "security": []
      }
    },
    "/players": {
      "get": {
        "tags": [
          "players"
        ],
        "operationId": "listPlayers",
        "summary": "Every player, in the order added.",
        "description": "Lists the simulated players (`--player` and those added with POST /players). Needs `Authorization: Bearer <token>` only when the server was started with --token (or --accept-any-token); otherwise anonymous calls are admitted. The token is checked before the method and the path below /players, so without an admitted token every request here is a 401.",
        "responses": {
          "200": {
            "description": "The players.",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/PlayerList"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        }
      },
      "post": {
        "tags": [
          "players"
        ],
        "operationId": "addPlayer",
        "summary": "Add a player, which starts playing at once.",
        "description": "The body is either a JSON object (NewPlayer) or a GPX document. A body whose first non-blank byte is `<`, or sent with a Content-Type that contains `xml` or `gpx`, is read as GPX, and the player's `name`, `speed` and `loop` then come from the query (any other query parameter is a 400); with a JSON body the query is ignored and any Content-Type is accepted. Checks, in order: the body's shape (400), the reserved name `events` and the name's characters (400), a player of that name already there, playing or not (409), then the spec or GPX document and the speed (400). Needs `Authorization: Bearer <token>` only when the server was started with --token (or --accept-any-token); otherwise anonymous calls are admitted. The token is checked before the method and the path below /players, so without an admitted token every request here is a 401.",
        "parameters": [
          {
            "name": "name",
            "in": "query",
            "required": false,
            "description": "GPX bodies only (required with one): the player's name, 1 to 32 of A-Z a-z 0-9 . _ -, not `events`. Ignored with a JSON body.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "speed",
            "in": "query",
            "required": false,
            "description": "GPX bodies only: times real time, a number 0.1...1000; default the server's --player-speed. Ignored with a JSON body.",
            "schema": {
              "type": "string"
            }
          },
          {
            "name": "loop",
            "in": "query",
            "required": false,
            "description": "GPX bodies only: `true` or `false` exactly (default false). Ignored with a JSON body.",
            "schema": {
              "type": "string"
            }
          }
        ],
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/NewPlayer"
              },
              "examples": {
                "line": {
                  "summary": "A run along a line at twice real time",
                  "value": {
                    "name": "carol",
                    "spec": "line:35.68,139.76:35.69,139.75 --profile run",
                    "speed": 2
                  }
                },
                "stationary": {
                  "summary": "Standing still for ten minutes",
                  "value": {
                    "name": "dave",
                    "spec": "stationary:35.6812,139.7671 --duration 10m",
                    "loop": true
                  }
                }
              }
            },
            "application/gpx+xml": {
              "schema": {
                "type": "string",
                "description": "A GPX 1.0 or 1.1 document (track, route or waypoints with times). Needs the `name` query parameter."
              }
            }
          }
        },
        "responses": {
          "201": {
            "description": "The player added, as GET /players/{name} shows it.",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Player"
                }
              }
            },
            "links": {
              "GetPlayer": {
                "operationId": "getPlayer",
                "parameters": {
                  "name": "$response.body#/name"
                }
              },
              "ControlPlayer": {
                "operationId": "controlPlayer",
                "parameters": {
                  "name": "$response.body#/name"
                }
              },
              "RemovePlayer": {
                "operationId": "removePlayer",
                "parameters": {
                  "name": "$response.body#/name"
                }
              }
            }
          },
          "400": {
            "description": "The body is empty or not a JSON object, a field is unknown, missing or of the wrong type, the name is invalid or reserved, the spec or GPX document cannot be played (a file or relayed receiver spec is always refused over HTTP), or the speed is out of range or disagrees with the spec's own; `parameter` names the field (`body`, `name`, `spec`, `speed`, `loop`, or the unknown field or query parameter).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/BadRequestError"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "description": "The player was removed again before it could be shown (a DELETE racing this request).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/NotFoundError"
                }
              }
            }
          },
          "409": {
            "description": "A player of that name already exists, whatever its state (DELETE it first to reuse the name).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/ConflictError"
                },
                "example": {
                  "error": {
                    "code": "conflict",
                    "message": "a player named 'carol' already exists (playing); DELETE /players/carol first to reuse the name",
                    "parameter": "name"
                  }
                }
              }
            }
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          }
        }
      },
      "head": {
        "tags": [
          "players"
        ],
        "operationId": "headPlayers",
        "summary": "The same as listPlayers, headers only.",
        "description": "Answered exactly as the GET (the same work, status and headers, `Content-Length` included), without the body.",
        "responses": {
          "200": {
            "description": "The players. (HEAD: headers only, no body.)",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            }
          },
          "401": {
            "description": "Only when the server runs with --token (or --accept-any-token): the bearer token is missing or not admitted. (HEAD: headers only, no body.)",
            "headers": {
              "WWW-Authenticate": {
                "$ref": "#/components/headers/WWW-Authenticate"
              }
            }
          },
          "413": {
            "description": "The request body is over 16 MiB or could not be read (code `bad_request`, parameter `body`). The players' routes and the live map read any body before answering. (HEAD: headers only, no body.)"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        }
      }
    },
    "/players/events": {
      "get": {
        "tags": [
          "players"
        ],
        "operationId": "streamAllPlayerEvents",
        "summary": "Server-Sent Events of every player.",
        "description": "Opens with one `state` frame per player (`reason` `current`, with its `history`), or, with a resumable Last-Event-ID, the events missed since; then every fix, state change, removal and map note as it happens. A client more than 1,024 frames behind has its stream ended where it got to (resume with Last-Event-ID). The stream stays open: a client that waits for the whole body never returns. Needs `Authorization: Bearer <token>` only when the server was started with --token (or --accept-any-token); otherwise anonymous calls are admitted. The token is checked before the method and the path below /players, so without an admitted token every request here is a 401.",
        "parameters": [
          {
            "$ref": "#/components/parameters/LastEventID"
          }
        ],
        "responses": {
          "200": {
            "$ref": "#/components/responses/EventStream"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "500": {
            "$ref": "#/components/responses/EventStreamFailed"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        }
      },
      "head": {
        "tags": [
          "players"
        ],
        "operationId": "headAllPlayerEvents",
        "summary": "The same as streamAllPlayerEvents, headers only.",
        "description": "Answered as the GET (the same checks and status), but the event stream is opened and closed at once: the 200 has the GET's headers (`Content-Type: text/event-stream`, `Cache-Control: no-cache`, `Transfer-Encoding: chunked`, no `Content-Length`) and no body.",
        "responses": {
          "200": {
            "description": "The event stream. It does not end on its own while the player (or server) lives: clients that read the whole body never return. (HEAD: headers only, no body.)",
            "headers": {
              "Cache-Control": {
                "$ref": "#/components/headers/Cache-Control"
              }
            }
          },
          "401": {
            "description": "Only when the server runs with --token (or --accept-any-token): the bearer token is missing or not admitted. (HEAD: headers only, no body.)",
            "headers": {
              "WWW-Authenticate": {
                "$ref": "#/components/headers/WWW-Authenticate"
              }
            }
          },
          "413": {
            "description": "The request body is over 16 MiB or could not be read (code `bad_request`, parameter `body`). The players' routes and the live map read any body before answering. (HEAD: headers only, no body.)"
          },
          "500": {
            "description": "The stream could not be set up (not expected in practice). (HEAD: headers only, no body.)"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/LastEventID"
          }
        ]
      }
    },
    "/players/{name}": {
      "parameters": [
        {
          "$ref": "#/components/parameters/PlayerName"
        }
      ],
      "get": {
        "tags": [
          "players"
        ],
        "operationId": "getPlayer",
        "summary": "One player: its state, progress and newest fix.",
        "description": "The player as it is now. Needs `Authorization: Bearer <token>` only when the server was started with --token (or --accept-any-token); otherwise anonymous calls are admitted. The token is checked before the method and the path below /players, so without an admitted token every request here is a 401.",
        "responses": {
          "200": {
            "$ref": "#/components/responses/Player"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "404": {
            "$ref": "#/components/responses/PlayerNotFound"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        }
      },
      "delete": {
        "tags": [
          "players"
        ],
        "operationId": "removePlayer",
        "summary": "Stop and remove a player.",
        "description": "The player stops, its gpsd device goes, and streams hear a `removed` event (its own stream then ends). Needs `Authorization: Bearer <token>` only when the server was started with --token (or --accept-any-token); otherwise anonymous calls are admitted. The token is checked before the method and the path below /players, so without an admitted token every request here is a 401.",
        "responses": {
          "200": {
            "description": "Removed.",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            },
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/PlayerRemoved"
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/PlayerNotFound"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        }
      },
      "head": {
        "tags": [
          "players"
        ],
        "operationId": "headPlayer",
        "summary": "The same as getPlayer, headers only.",
        "description": "Answered exactly as the GET (the same work, status and headers, `Content-Length` included), without the body.",
        "responses": {
          "200": {
            "description": "The player as it is now. (HEAD: headers only, no body.)",
            "headers": {
              "Content-Encoding": {
                "$ref": "#/components/headers/Content-Encoding"
              },
              "Vary": {
                "$ref": "#/components/headers/Vary"
              }
            }
          },
          "401": {
            "description": "Only when the server runs with --token (or --accept-any-token): the bearer token is missing or not admitted. (HEAD: headers only, no body.)",
            "headers": {
              "WWW-Authenticate": {
                "$ref": "#/components/headers/WWW-Authenticate"
              }
            }
          },
          "404": {
            "description": "No player of that name is playing. (HEAD: headers only, no body.)"
          },
          "413": {
            "description": "The request body is over 16 MiB or could not be read (code `bad_request`, parameter `body`). The players' routes and the live map read any body before answering. (HEAD: headers only, no body.)"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        }
      }
    },
    "/players/{name}/control": {
      "parameters": [
        {
          "$ref": "#/components/parameters/PlayerName"
        }
      ],
      "post": {
        "tags": [
          "players"
        ],
        "operationId": "controlPlayer",
        "summary": "Apply one control action to a player.",
        "description": "Pause, resume, change speed, seek, teleport or set looping. The player is looked up before the body is read, so an unknown player is a 404 whatever the body. An action that changes nothing (pausing a paused player, the speed it already has) is answered 200 and sends no `state` event. After a seek or teleport the answer has the new `offset` and no `fix` until the fix at the new position is sent. Needs `Authorization: Bearer <token>` only when the server was started with --token (or --accept-any-token); otherwise anonymous calls are admitted. The token is checked before the method and the path below /players, so without an admitted token every request here is a 401.",
        "requestBody": {
          "required": true,
          "content": {
            "application/json": {
              "schema": {
                "$ref": "#/components/schemas/PlayerControl"
              },
              "examples": {
                "pause": {
                  "value": {
                    "action": "pause"
                  }
                },
                "speed": {
                  "value": {
                    "action": "speed",
                    "speed": 20
                  }
                },
                "seek": {
                  "value": {
                    "action": "seek",
                    "fraction": 0.5
                  }
                },
                "teleport": {
                  "value": {
                    "action": "teleport",
                    "lat": 35.6895,
                    "lng": 139.6917
                  }
                },
                "loop": {
                  "value": {
                    "action": "loop",
                    "loop": true
                  }
                }
              }
            }
          }
        },
        "responses": {
          "200": {
            "$ref": "#/components/responses/Player"
          },
          "400": {
            "description": "The body is empty or not a JSON object, `action` is missing or unknown, a field is missing, of the wrong type, out of range or not a field of the action; `parameter` names the field (`body`, `action`, `speed`, `offset`, `fraction`, `lat`, `lng`, `loop`, or the extra field).",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/BadRequestError"
                },
                "example": {
                  "error": {
                    "code": "bad_request",
                    "message": "must be within 0.1...1000 (times real time), got 5000",
                    "parameter": "speed"
                  }
                }
              }
            }
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "403": {
            "$ref": "#/components/responses/Forbidden"
          },
          "404": {
            "$ref": "#/components/responses/PlayerNotFound"
          },
          "409": {
            "description": "The action does not apply to the player as it is: `pause` or `resume` of a player whose path has ended, or any action on a player that takes none (a relayed receiver), `parameter` `action`; a seek by `fraction` on a path with no known end, `parameter` `fraction`.",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/ConflictError"
                },
                "example": {
                  "error": {
                    "code": "conflict",
                    "message": "the player's path has ended: nothing to pause (seek, or turn loop on, to play it again)",
                    "parameter": "action"
                  }
                }
              }
            }
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          }
        }
      }
    },
    "/players/{name}/fixes": {
      "parameters": [
        {
          "$ref": "#/components/parameters/PlayerName"
        }
      ],
      "get": {
        "tags": [
          "players"
        ],
        "operationId": "streamPlayerEvents",
        "summary": "Server-Sent Events of one player.",
        "description": "As GET /players/events, for this player only; the stream ends after the player's `removed` frame. The stream stays open while the player lives: a client that waits for the whole body never returns. Needs `Authorization: Bearer <token>` only when the server was started with --token (or --accept-any-token); otherwise anonymous calls are admitted. The token is checked before the method and the path below /players, so without an admitted token every request here is a 401.",
        "parameters": [
          {
            "$ref": "#/components/parameters/LastEventID"
          }
        ],
        "responses": {
          "200": {
            "$ref": "#/components/responses/EventStream"
          },
          "401": {
            "$ref": "#/components/responses/Unauthorized"
          },
          "404": {
            "$ref": "#/components/responses/PlayerNotFound"
          },
          "413": {
            "$ref": "#/components/responses/PayloadTooLarge"
          },
          "500": {
            "$ref": "#/components/responses/EventStreamFailed"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        }
      },
      "head": {
        "tags": [
          "players"
        ],
        "operationId": "headPlayerEvents",
        "summary": "The same as streamPlayerEvents, headers only.",
        "description": "Answered as the GET (the same checks and status), but the event stream is opened and closed at once: the 200 has the GET's headers (`Content-Type: text/event-stream`, `Cache-Control: no-cache`, `Transfer-Encoding: chunked`, no `Content-Length`) and no body.",
        "responses": {
          "200": {
            "description": "The event stream. It does not end on its own while the player (or server) lives: clients that read the whole body never return. (HEAD: headers only, no body.)",
            "headers": {
              "Cache-Control": {
                "$ref": "#/components/headers/Cache-Control"
              }
            }
          },
          "401": {
            "description": "Only when the server runs with --token (or --accept-any-token): the bearer token is missing or not admitted. (HEAD: headers only, no body.)",
            "headers": {
              "WWW-Authenticate": {
                "$ref": "#/components/headers/WWW-Authenticate"
              }
            }
          },
          "404": {
            "description": "No player of that name is playing. (HEAD: headers only, no body.)"
          },
          "413": {
            "description": "The request body is over 16 MiB or could not be read (code `bad_request`, parameter `body`). The players' routes and the live map read any body before answering. (HEAD: headers only, no body.)"
          },
          "500": {
            "description": "The stream could not be set up (not expected in practice). (HEAD: headers only, no body.)"
          },
          "400": {
            "$ref": "#/components/responses/BadRequest"
          }
        },
        "parameters": [
          {
            "$ref": "#/components/parameters/LastEventID"
          }
        ]
      }
    }
  },
  "components": {
    "securitySchemes": {
      "bearerAuth": {
        "type": "http",
        "scheme": "bearer",
        "description": "`Authorization: Bearer <token>`. Enforced only when the server was started with --token (one token; also --token-file or LOCSIM_TOKEN) or --accept-any-token (any well-formed token); otherwise anonymous calls are admitted."
      }
    },
    "schemas": {
      "Error": {
        "type": "object",
        "description": "The one error shape of every route. `parameter` is present only when a single query parameter, header, body field or path part is to blame. The nearby routes use the codes bad_request, unauthorized, not_found, method_not_allowed, unavailable and injected_failure; the connection guard adds request_timeout and headers_too_large; the players' API and the live map add payload_too_large (413), conflict and internal; every route that changes state adds forbidden (403) for a page of another origin.",
        "required": [
          "error"
        ],
        "additionalProperties": false,
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "additionalProperties": false,
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "bad_request",
                  "unauthorized",
                  "forbidden",
                  "not_found",
                  "method_not_allowed",
                  "unavailable",
                  "injected_failure",
                  "request_timeout",
                  "headers_too_large",
                  "conflict",
                  "internal",
                  "payload_too_large"
                ],
                "description": "What went wrong, as a stable machine-readable word."
              },
              "message": {
                "type": "string",
                "description": "What went wrong, for people. Never contains the bearer token."
              },
              "parameter": {
                "type": "string",
                "description": "The query parameter, header, body field or path part to blame."
              }
            }
          }
        }
      },
      "BadRequestError": {
        "type": "object",
        "description": "A 400: a query parameter or body field is missing, malformed, out of range or given twice, or a parameter is named as one of the route's own in other letter case or as lon/longitude/latitude; `parameter` names it.",
        "required": [
          "error"
        ],
        "additionalProperties": false,
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message",
              "parameter"
            ],
            "additionalProperties": false,
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "bad_request"
                ],
                "description": "What went wrong, as a stable machine-readable word."
              },
              "message": {
                "type": "string",
                "description": "What went wrong, for people. Never contains the bearer token."
              },
              "parameter": {
                "type": "string",
                "description": "The query parameter, header, body field or path part to blame."
              }
            }
          }
        }
      },
      "UnauthorizedError": {
        "type": "object",
        "description": "A 401: the server was started with --token (or --accept-any-token) and the request carried no `Authorization: Bearer ...` header, or one the server does not admit.",
        "required": [
          "error"
        ],
        "additionalProperties": false,
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "additionalProperties": false,
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "unauthorized"
                ],
                "description": "What went wrong, as a stable machine-readable word."
              },
              "message": {
                "type": "string",
                "description": "What went wrong, for people. Never contains the bearer token."
              }
            }
          }
        }
      },
      "NotFoundError": {
        "type": "object",
        "description": "A 404: no such path, no such player, or (POST /audit/reset) no such audit client, in which case `parameter` is `client`.",
        "required": [
          "error"
        ],
        "additionalProperties": false,
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "additionalProperties": false,
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "not_found"
                ],
                "description": "What went wrong, as a stable machine-readable word."
              },
              "message": {
                "type": "string",
                "description": "What went wrong, for people. Never contains the bearer token."
              },
              "parameter": {
                "type": "string",
                "description": "The query parameter, header, body field or path part to blame."
              }
            }
          }
        }
      },
      "MethodNotAllowedError": {
        "type": "object",
        "description": "A 405: the path exists but does not take this method. The `Allow` header lists the methods it takes.",
        "required": [
          "error"
        ],
        "additionalProperties": false,
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "additionalProperties": false,
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "method_not_allowed"
                ],
                "description": "What went wrong, as a stable machine-readable word."
              },
              "message": {
                "type": "string",
                "description": "What went wrong, for people. Never contains the bearer token."
              }
            }
          }
        }
      },
      "UnavailableError": {
        "type": "object",
        "description": "A 503 the server answers on its own: the place backend failed or is down, a request held by a timeout fault was released by shutdown, or (connection guard) too many connections are open.",
        "required": [
          "error"
        ],
        "additionalProperties": false,
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "additionalProperties": false,
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "unavailable"
                ],
                "description": "What went wrong, as a stable machine-readable word."
              },
              "message": {
                "type": "string",
                "description": "What went wrong, for people. Never contains the bearer token."
              }
            }
          }
        }
      },
      "InjectedFailureError": {
        "type": "object",
        "description": "A failure injected on purpose by --fail-rate (500 or 503) or by a --script step with a status of 400 or more and no body.",
        "required": [
          "error"
        ],
        "additionalProperties": false,
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "additionalProperties": false,
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "injected_failure"
                ],
                "description": "What went wrong, as a stable machine-readable word."
              },
              "message": {
                "type": "string",
                "description": "What went wrong, for people. Never contains the bearer token."
              }
            }
          }
        }
      },
      "ConflictError": {
        "type": "object",
        "description": "A 409: a player of that name already exists (`parameter` `name`), or a control action the player's state refuses (`action`, `fraction`).",
        "required": [
          "error"
        ],
        "additionalProperties": false,
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message",
              "parameter"
            ],
            "additionalProperties": false,
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "conflict"
                ],
                "description": "What went wrong, as a stable machine-readable word."
              },
              "message": {
                "type": "string",
                "description": "What went wrong, for people. Never contains the bearer token."
              },
              "parameter": {
                "type": "string",
                "description": "The query parameter, header, body field or path part to blame.",
                "enum": [
                  "name",
                  "action",
                  "fraction"
                ]
              }
            }
          }
        }
      },
      "ForbiddenError": {
        "type": "object",
        "description": "A 403: a request that would change the server's state (add, control or remove a player, reset the audit) came from a page of another origin (its `Origin` header is not this server's): refused against cross-site request forgery. Clients that are not browsers send no `Origin`.",
        "required": [
          "error"
        ],
        "additionalProperties": false,
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message",
              "parameter"
            ],
            "additionalProperties": false,
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "forbidden"
                ],
                "description": "What went wrong, as a stable machine-readable word."
              },
              "message": {
                "type": "string",
                "description": "What went wrong, for people. Never contains the bearer token."
              },
              "parameter": {
                "type": "string",
                "description": "The query parameter, header, body field or path part to blame.",
                "enum": [
                  "Origin"
                ]
              }
            }
          }
        }
      },
      "PayloadTooLargeError": {
        "type": "object",
        "description": "A 413 (code `payload_too_large`): the request body of a players' route or the live map page was over 16 MiB; `parameter` is `body`.",
        "required": [
          "error"
        ],
        "additionalProperties": false,
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message",
              "parameter"
            ],
            "additionalProperties": false,
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "payload_too_large"
                ],
                "description": "What went wrong, as a stable machine-readable word."
              },
              "message": {
                "type": "string",
                "description": "What went wrong, for people. Never contains the bearer token."
              },
              "parameter": {
                "type": "string",
                "description": "The query parameter, header, body field or path part to blame.",
                "enum": [
                  "body"
                ]
              }
            }
          }
        }
      },
      "InternalError": {
        "type": "object",
        "description": "A 500 of the players' event streams: the stream could not be set up. Not expected in practice.",
        "required": [
          "error"
        ],
        "additionalProperties": false,
        "properties": {
          "error": {
            "type": "object",
            "required": [
              "code",
              "message"
            ],
            "additionalProperties": false,
            "properties": {
              "code": {
                "type": "string",
                "enum": [
                  "internal"
                ],
                "description": "What went wrong, as a stable machine-readable word."
              },
              "message": {
                "type": "string",
                "description": "What went wrong, for people. Never contains the bearer token."
              }
            }
          }
        }
      },
      "Location": {
        "type": "object",
        "description": "One place of a nearby answer. `location_type` is left out when the place has no kind, `level` when it has none.",
        "required": [
          "id",
          "name",
          "lat",
          "lng"
        ],
        "additionalProperties": false,
        "properties": {
          "id": {
            "type": "string",
            "description": "The place's id as the index or database stores it. The bundled places use UUIDs, but imported ids are arbitrary text; with `serve --id-format uuid` every id that is not a UUID is replaced by its stable name-based (version 5) UUID."
          },
          "name": {
            "type": "string"
          },
          "lat": {
            "type": "number",
            "minimum": -90,
            "maximum": 90,
            "description": "Latitude, decimal degrees (WGS-84)."
          },
          "lng": {
            "type": "number",
            "minimum": -180,
            "maximum": 180,
            "description": "Longitude, decimal degrees (WGS-84)."
          },
          "location_type": {
            "type": "string",
            "minLength": 1,
            "description": "The place's kind (for example `church`)."
          },
          "level": {
            "type": "integer",
            "description": "The place's level."
          }
        },
        "example": {
          "id": "3732bd1f-107e-5c88-ab5f-4bdd60241d60",
          "name": "Mission Dolores",
          "lat": 37.7644,
          "lng": -122.4269,
          "location_type": "church",
          "level": 3
        }
      },
      "NearbyResponse": {
        "type": "object",
        "description": "The places within the radius, nearest first (exact spherical distance; equal distances ordered by id), at most `limit` of them when a limit was given.",
        "required": [
          "locations"
        ],
        "additionalProperties": false,
        "properties": {
          "locations": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/Location"
            }
          }
        }
      },
      "AuditVerdict": {
        "type": "string",
        "enum": [
          "first",
          "moved",
          "elapsed",
          "retry",
          "too_soon",
          "overlap",
          "retry_storm"
        ],
        "description": "The audit's verdict on one nearby request against the game's fetch rule. `too_soon`, `overlap` and `retry_storm` are violations."
      },
      "AuditVerdictCounts": {
        "type": "object",
        "description": "Requests per verdict; every verdict is present, 0 when unseen.",
        "required": [
          "first",
          "moved",
          "elapsed",
          "retry",
          "too_soon",
          "overlap",
          "retry_storm"
        ],
        "additionalProperties": false,
        "properties": {
          "first": {
            "type": "integer",
            "minimum": 0
          },
          "moved": {
            "type": "integer",
            "minimum": 0
          },
          "elapsed": {
            "type": "integer",
            "minimum": 0
          },
          "retry": {
            "type": "integer",
            "minimum": 0
          },
          "too_soon": {
            "type": "integer",
            "minimum": 0
          },
          "overlap": {
            "type": "integer",
            "minimum": 0
          },
          "retry_storm": {
            "type": "integer",
            "minimum": 0
          }
        }
      },
      "AuditEntry": {
        "type": "object",
        "description": "One audited nearby request.",
        "required": [
          "seq",
          "time",
          "lat",
          "lng",
          "radius",
          "verdict",
          "reason",
          "status"
        ],
        "additionalProperties": false,
        "properties": {
          "seq": {
            "type": "integer",
            "minimum": 1,
            "description": "The request's sequence number over all clients, in arrival order; usable as `cursor`."
          },
          "time": {
            "type": "string",
            "format": "date-time",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
            "description": "Arrival time, UTC with milliseconds."
          },
          "lat": {
            "type": "number",
            "minimum": -90,
            "maximum": 90
          },
          "lng": {
            "type": "number",
            "minimum": -180,
            "maximum": 180
          },
          "radius": {
            "type": "number",
            "minimum": 1,
            "description": "The query radius, metres."
          },
          "verdict": {
            "$ref": "#/components/schemas/AuditVerdict"
          },
          "reason": {
            "type": "string",
            "description": "The verdict's reason in words, e.g. `moved 131 m` or `TOO SOON: 12 m and 8.1 s since the last fetch`."
          },
          "status": {
            "type": "integer",
            "nullable": true,
            "minimum": 0,
            "maximum": 599,
            "description": "The HTTP status the request was answered with; null while it is still in flight, 0 when it was never answered (a timeout fault, or the client left first)."
          }
        }
      },
      "AuditClient": {
        "type": "object",
        "description": "One client's record. Counts cover the whole audit; `timeline` holds only this page's entries.",
        "required": [
          "client",
          "requests",
          "violations",
          "verdicts",
          "timeline"
        ],
        "additionalProperties": false,
        "properties": {
          "client": {
            "type": "string",
            "description": "The client's name: `player:ID` (the X-Player-ID header), `device:VALUE` (the header named by --audit-client-header), `token#` and eight hex digits (a keyed hash of the bearer token), or `address:IP` optionally followed by `/` and the sanitised User-Agent."
          },
          "requests": {
            "type": "integer",
            "minimum": 0
          },
          "violations": {
            "type": "integer",
            "minimum": 0
          },
          "verdicts": {
            "$ref": "#/components/schemas/AuditVerdictCounts"
          },
          "timeline": {
            "type": "array",
            "items": {
              "$ref": "#/components/schemas/AuditEntry"
            }
          }
        }
      },
      "AuditReport": {
        "type": "object",
        "description": "The fetch-rule audit: totals over every client (dropped ones included) and one page of the kept per-client timelines.",
        "required": [
          "violations",
          "evicted",
          "next",
          "clients"
        ],
        "additionalProperties": false,
        "properties": {
          "violations": {
            "type": "integer",
            "minimum": 0,
            "description": "Violations over all clients."
          },
          "evicted": {
            "type": "object",
            "description": "Clients dropped from the table to keep it within its cap, with their requests and violations (still counted in the totals).",
            "required": [
              "clients",
              "requests",
              "violations"
            ],
            "additionalProperties": false,
            "properties": {
              "clients": {
                "type": "integer",
                "minimum": 0
              },
              "requests": {
                "type": "integer",
                "minimum": 0
              },
              "violations": {
                "type": "integer",
                "minimum": 0
              }
            }
          },
          "next": {
            "type": "integer",
            "nullable": true,
            "minimum": 1,
            "description": "The `cursor` of the following page, or null when no kept entry comes after this page."
          },
          "clients": {
            "type": "array",
            "description": "Every kept client, in order of first appearance (also those with no entry in this page).",
            "items": {
              "$ref": "#/components/schemas/AuditClient"
            }
          }
        }
      },
      "AuditResetResult": {
        "type": "object",
        "required": [
          "restarted"
        ],
        "additionalProperties": false,
        "properties": {
          "restarted": {
            "type": "integer",
            "minimum": 0,
            "description": "How many clients' rules were restarted (1 when a client was named)."
          }
        },
        "example": {
          "restarted": 2
        }
      },
      "TPV": {
        "type": "object",
        "description": "A fix as gpsd's `TPV` report (gpsd_json(5), protocol 3.14): members without a known value are left out, never null. A fix without a position (mode 1) has only class, device, mode, time and ept.",
        "required": [
          "class",
          "device",
          "mode",
          "time",
          "ept"
        ],
        "additionalProperties": false,
        "properties": {
          "class": {
            "type": "string",
            "enum": [
              "TPV"
            ]
          },
          "device": {
            "type": "string",
            "pattern": "^/dev/locsim/[A-Za-z0-9._-]{1,32}$",
            "description": "The player's device path, `/dev/locsim/NAME`."
          },
          "mode": {
            "type": "integer",
            "enum": [
              1,
              2,
              3
            ],
            "description": "1 no fix, 2 two-dimensional, 3 three-dimensional."
          },
          "time": {
            "type": "string",
            "format": "date-time",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$"
          },
          "ept": {
            "type": "number",
            "minimum": 0,
            "description": "Time uncertainty, seconds."
          },
          "lat": {
            "type": "number",
            "minimum": -90,
            "maximum": 90
          },
          "lon": {
            "type": "number",
            "minimum": -180,
            "maximum": 180
          },
          "altHAE": {
            "type": "number",
            "description": "Altitude above the ellipsoid, metres (3D fixes)."
          },
          "altMSL": {
            "type": "number",
            "description": "Altitude above mean sea level, metres (3D fixes)."
          },
          "alt": {
            "type": "number",
            "description": "Same as altMSL."
          },
          "epx": {
            "type": "number",
            "minimum": 0
          },
          "epy": {
            "type": "number",
            "minimum": 0
          },
          "epv": {
            "type": "number",
            "minimum": 0
          },
          "track": {
            "type": "number",
            "description": "Course over ground, degrees from true north."
          },
          "speed": {
            "type": "number",
            "description": "Ground speed, m/s."
          },
          "climb": {
            "type": "number",
            "description": "Vertical speed, m/s (3D fixes)."
          },
          "geoidSep": {
            "type": "number"
          },
          "eph": {
            "type": "number",
            "minimum": 0,
            "description": "Horizontal accuracy, metres."
          }
        }
      },
      "PlayerState": {
        "type": "string",
        "description": "`waiting`: a relayed receiver (`gpsd://`) that has sent no fix with a position yet; `playing` from its first one.",
        "enum": [
          "waiting",
          "playing",
          "paused",
          "ended",
          "failed"
        ]
      },
      "Player": {
        "type": "object",
        "description": "A simulated player as the control API shows it. `duration` and `fraction` are present only when the path's end is known; `fix` is the newest fix, absent before the first one and right after a seek or teleport until the fix at the new position has been sent.",
        "required": [
          "name",
          "device",
          "summary",
          "seed",
          "state",
          "controllable",
          "speed",
          "loop",
          "offset",
          "fixes"
        ],
        "additionalProperties": false,
        "properties": {
          "name": {
            "type": "string",
            "pattern": "^[A-Za-z0-9._-]{1,32}$"
          },
          "device": {
            "type": "string",
            "pattern": "^/dev/locsim/[A-Za-z0-9._-]{1,32}$",
            "description": "The device path gpsd clients see."
          },
          "summary": {
            "type": "string",
            "description": "What the player plays, for people."
          },
          "seed": {
            "type": "string",
            "pattern": "^[0-9]+$",
            "description": "The seed of the player's sky, a 64-bit unsigned integer written as a string."
          },
          "state": {
            "$ref": "#/components/schemas/PlayerState"
          },
          "controllable": {
            "type": "boolean",
            "description": "False for a relayed receiver (gpsd://...), which takes no control actions."
          },
          "speed": {
            "type": "number",
            "minimum": 0.1,
            "maximum": 1000,
            "description": "Times real time."
          },
          "loop": {
            "type": "boolean"
          },
          "offset": {
            "type": "number",
            "minimum": 0,
            "description": "Seconds into the path (path time)."
          },
          "duration": {
            "type": "number",
            "minimum": 0,
            "description": "The path's length, path seconds."
          },
          "fraction": {
            "type": "number",
            "minimum": 0,
            "maximum": 1,
            "description": "offset / duration."
          },
          "fixes": {
            "type": "integer",
            "minimum": 0,
            "description": "Fixes sent so far."
          },
          "fix": {
            "$ref": "#/components/schemas/TPV"
          }
        }
      },
      "PlayerList": {
        "type": "object",
        "required": [
          "players"
        ],
        "additionalProperties": false,
        "properties": {
          "players": {
            "type": "array",
            "description": "Every player, in the order added.",
            "items": {
              "$ref": "#/components/schemas/Player"
            }
          }
        }
      },
      "PlayerRemoved": {
        "type": "object",
        "required": [
          "removed"
        ],
        "additionalProperties": false,
        "properties": {
          "removed": {
            "type": "string",
            "description": "The name of the player removed."
          }
        },
        "example": {
          "removed": "bob"
        }
      },
      "NewPlayer": {
        "type": "object",
        "description": "A player to add, given as a `--player` spec (the part after `NAME=`). Unknown fields are refused. The spec's grammar is that of `locsim serve --player` (docs/guides/feeds.md): a path such as `line:LAT,LON:LAT,LON`, `route:A:VIA:...:B`, `circle:CENTER[:RADIUS]`, `stationary:AT` or `random-walk:FROM[:WITHIN]`, optionally followed by `locsim simulate` options (`--profile run`, `--duration 10m`, `--seed 7`, `--speed 2`, ...). Specs that name a file (`.gpx`, `.nmea`, `.log`) or a relayed receiver (`gpsd://...`) are refused over HTTP (400); send a GPX document as the body instead.",
        "required": [
          "name",
          "spec"
        ],
        "additionalProperties": false,
        "properties": {
          "name": {
            "type": "string",
            "pattern": "^(?!events$)[A-Za-z0-9._-]{1,32}$",
            "description": "1 to 32 of A-Z a-z 0-9 . _ -; `events` is reserved."
          },
          "spec": {
            "type": "string",
            "minLength": 1,
            "description": "The player's path and options."
          },
          "speed": {
            "type": "number",
            "minimum": 0.1,
            "maximum": 1000,
            "description": "Times real time; default the server's --player-speed. A value that differs from a `--speed` inside the spec is refused."
          },
          "loop": {
            "type": "boolean",
            "default": false,
            "description": "Whether the path starts again at its end."
          }
        },
        "example": {
          "name": "carol",
          "spec": "line:35.68,139.76:35.69,139.75 --profile run",
          "speed": 2,
          "loop": false
        }
      },
      "PlayerControl": {
        "description": "One control action. Fields that do not belong to the action are refused. Besides the shape, the player's state decides: an ended player refuses pause and resume, a seek past the end of a path of known length is refused, `fraction` needs a path whose end is known, and a relayed receiver refuses every action (each a 400).",
        "oneOf": [
          {
            "type": "object",
            "required": [
              "action"
            ],
            "additionalProperties": false,
            "properties": {
              "action": {
                "type": "string",
                "enum": [
                  "pause"
                ]
              }
            },
            "description": "Hold the player where it is; its device stays, silent."
          },
          {
            "type": "object",
            "required": [
              "action"
            ],
            "additionalProperties": false,
            "properties": {
              "action": {
                "type": "string",
                "enum": [
                  "resume"
                ]
              }
            },
            "description": "Go on from where it was held."
          },
          {
            "type": "object",
            "required": [
              "action",
              "speed"
            ],
            "additionalProperties": false,
            "properties": {
              "action": {
                "type": "string",
                "enum": [
                  "speed"
                ]
              },
              "speed": {
                "type": "number",
                "minimum": 0.1,
                "maximum": 1000,
                "description": "Times real time."
              }
            },
            "description": "Play at this speed from now."
          },
          {
            "type": "object",
            "required": [
              "action",
              "offset"
            ],
            "additionalProperties": false,
            "properties": {
              "action": {
                "type": "string",
                "enum": [
                  "seek"
                ]
              },
              "offset": {
                "type": "number",
                "minimum": 0,
                "description": "Path seconds from the start."
              }
            },
            "description": "Jump to a time into the path."
          },
          {
            "type": "object",
            "required": [
              "action",
              "fraction"
            ],
            "additionalProperties": false,
            "properties": {
              "action": {
                "type": "string",
                "enum": [
                  "seek"
                ]
              },
              "fraction": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "description": "Share of the path's duration."
              }
            },
            "description": "Jump to a share of the path (only for a path whose end is known)."
          },
          {
            "type": "object",
            "required": [
              "action",
              "lat",
              "lng"
            ],
            "additionalProperties": false,
            "properties": {
              "action": {
                "type": "string",
                "enum": [
                  "teleport"
                ]
              },
              "lat": {
                "type": "number",
                "minimum": -90,
                "maximum": 90
              },
              "lng": {
                "type": "number",
                "minimum": -180,
                "maximum": 180
              }
            },
            "description": "Move the player to this point now; the rest of its path is shifted to follow from there."
          },
          {
            "type": "object",
            "required": [
              "action",
              "loop"
            ],
            "additionalProperties": false,
            "properties": {
              "action": {
                "type": "string",
                "enum": [
                  "loop"
                ]
              },
              "loop": {
                "type": "boolean"
              }
            },
            "description": "Whether the path starts again at its end; turning it on for an ended player restarts it."
          }
        ]
      },
      "PlayerHistory": {
        "type": "object",
        "description": "What a player did before a stream opened: its trail (thinned evenly to at most 2,000 points plus the newest) and the kept notes (the map's newest fetches and the places it shows), in the order posted.",
        "required": [
          "trail",
          "notes"
        ],
        "additionalProperties": false,
        "properties": {
          "trail": {
            "type": "array",
            "items": {
              "type": "array",
              "minItems": 2,
              "maxItems": 2,
              "items": {
                "type": "number"
              },
              "description": "[latitude, longitude], 7 decimals."
            }
          },
          "notes": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "event",
                "data"
              ],
              "additionalProperties": false,
              "properties": {
                "event": {
                  "type": "string"
                },
                "data": {
                  "type": "object"
                }
              }
            }
          }
        }
      },
      "PlayerStateEvent": {
        "type": "object",
        "description": "The data of an event-stream frame `event: state`. The opening frames (`reason` `current`) carry `history`.",
        "required": [
          "reason",
          "player"
        ],
        "additionalProperties": false,
        "properties": {
          "reason": {
            "type": "string",
            "enum": [
              "current",
              "added",
              "pause",
              "resume",
              "speed",
              "seek",
              "teleport",
              "loop",
              "ended",
              "failed"
            ]
          },
          "player": {
            "$ref": "#/components/schemas/Player"
          },
          "history": {
            "$ref": "#/components/schemas/PlayerHistory"
          }
        }
      },
      "PlayerFixEvent": {
        "type": "object",
        "description": "The data of an event-stream frame `event: fix`. `offset` (path seconds) is absent for a relayed receiver.",
        "required": [
          "player",
          "fix"
        ],
        "additionalProperties": false,
        "properties": {
          "player": {
            "type": "string"
          },
          "offset": {
            "type": "number"
          },
          "fix": {
            "$ref": "#/components/schemas/TPV"
          }
        }
      },
      "PlayerRemovedEvent": {
        "type": "object",
        "description": "The data of an event-stream frame `event: removed`; a single player's stream ends after it.",
        "required": [
          "player"
        ],
        "additionalProperties": false,
        "properties": {
          "player": {
            "type": "string"
          }
        }
      },
      "StreamResetEvent": {
        "type": "object",
        "description": "The data of an event-stream frame `event: reset`: the stream could not resume after the `Last-Event-ID` given, so the current state follows as for a new client.",
        "required": [
          "lastEventId"
        ],
        "additionalProperties": false,
        "properties": {
          "lastEventId": {
            "type": "string"
          }
        }
      },
      "MapEvent": {
        "type": "object",
        "description": "The data of an event-stream frame `event: map` posted by `locsim serve`'s map sessions: either a fetch the player's map screen made or the places it now shows (the nearest 300).",
        "required": [
          "player"
        ],
        "properties": {
          "player": {
            "type": "string"
          },
          "fetch": {
            "type": "object",
            "required": [
              "lat",
              "lng",
              "radius",
              "reason"
            ],
            "additionalProperties": false,
            "properties": {
              "lat": {
                "type": "number"
              },
              "lng": {
                "type": "number"
              },
              "radius": {
                "type": "number"
              },
              "reason": {
                "type": "string",
                "enum": [
                  "first",
                  "moved",
                  "elapsed",
                  "retry"
                ]
              }
            }
          },
          "places": {
            "type": "array",
            "items": {
              "type": "object",
              "required": [
                "id",
                "name",
                "lat",
                "lng"
              ],
              "additionalProperties": false,
              "properties": {
                "id": {
                  "type": "string"
                },
                "name": {
                  "type": "string"
                },
                "lat": {
                  "type": "number"
                },
                "lng": {
                  "type": "number"
                }
              }
            }
          }
        },
        "additionalProperties": false
      },
      "EventStream": {
        "type": "object",
        "description": "One event of a Server-Sent Events stream, as an SSE reader parses it (the schema applies to each event, as OpenAPI 3.2's itemSchema says and schemathesis reads it). Server-Sent Events, sent as they happen until the client leaves, the player is removed (one player's stream) or the server shuts down. Frame kinds: `state` (PlayerStateEvent), `fix` (PlayerFixEvent), `removed` (PlayerRemovedEvent), `reset` (StreamResetEvent), `map` (MapEvent); each frame is `event:`, `id:` (the server's event number; in the opening unit only the last frame has one), `data:` (one JSON object) and a blank line. A comment line `: keep-alive` comes every 15 s.",
        "properties": {
          "event": {
            "type": "string",
            "description": "The frame's kind: state, fix, removed, reset, map, or a player's note (phone, trouble)."
          },
          "id": {
            "type": "string",
            "description": "The server's event number, which Last-Event-ID resumes after."
          },
          "data": {
            "type": "string",
            "description": "One JSON object, the kind's schema."
          }
        },
        "required": ["event", "data"]
      }
    },
    "responses": {
      "BadRequest": {
        "description": "A parameter or body field is missing, malformed, out of range or repeated; `parameter` names it.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/BadRequestError"
            }
          }
        }
      },
      "Unauthorized": {
        "description": "Only when the server runs with --token (or --accept-any-token): the bearer token is missing or not admitted.",
        "headers": {
          "WWW-Authenticate": {
            "$ref": "#/components/headers/WWW-Authenticate"
          }
        },
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/UnauthorizedError"
            },
            "example": {
              "error": {
                "code": "unauthorized",
                "message": "this server needs 'Authorization: Bearer <token>'"
              }
            }
          }
        }
      },
      "Forbidden": {
        "description": "The request would change the server's state and its `Origin` is another site's (403, code `forbidden`, parameter `Origin`).",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/ForbiddenError"
            },
            "example": {
              "error": {
                "code": "forbidden",
                "message": "a page of another origin (http://evil.example) may not change this server's players or audit",
                "parameter": "Origin"
              }
            }
          }
        }
      },
      "PlayerNotFound": {
        "description": "No player of that name is playing.",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/NotFoundError"
            },
            "example": {
              "error": {
                "code": "not_found",
                "message": "no player 'nobody'"
              }
            }
          }
        }
      },
      "MethodNotAllowed": {
        "description": "The path exists but not with this method; `Allow` names the ones it takes. (Never the answer to a method documented here; listed for reference.)",
        "headers": {
          "Allow": {
            "$ref": "#/components/headers/Allow"
          }
        },
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/MethodNotAllowedError"
            }
          }
        }
      },
      "PayloadTooLarge": {
        "description": "The request body is over 16 MiB (code `payload_too_large`, parameter `body`). The players' routes and the live map read any body before answering; a body that cannot be read at all is a 400 (`bad_request`, parameter `body`).",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/PayloadTooLargeError"
            }
          }
        }
      },
      "EventStream": {
        "description": "The event stream. It does not end on its own while the player (or server) lives: clients that read the whole body never return.",
        "headers": {
          "Cache-Control": {
            "$ref": "#/components/headers/Cache-Control"
          }
        },
        "content": {
          "text/event-stream": {
            "schema": {
              "$ref": "#/components/schemas/EventStream"
            }
          }
        }
      },
      "EventStreamFailed": {
        "description": "The stream could not be set up (not expected in practice).",
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/InternalError"
            }
          }
        }
      },
      "Player": {
        "description": "The player as it is now.",
        "headers": {
          "Content-Encoding": {
            "$ref": "#/components/headers/Content-Encoding"
          },
          "Vary": {
            "$ref": "#/components/headers/Vary"
          }
        },
        "content": {
          "application/json": {
            "schema": {
              "$ref": "#/components/schemas/Player"
            }
          }
        }
      }
    },
    "parameters": {
      "Lat": {
        "name": "lat",
        "in": "query",
        "required": true,
        "description": "Latitude of the query point, decimal degrees -90...90. Written as a plain decimal `[+-]digits[.digits][(e|E)[+-]digits]` (`35.68`, `-1e-3`, `.5`); `nan`, `inf`, hex, an empty value, or the parameter given twice are 400s.",
        "schema": {
          "type": "number",
          "minimum": -90,
          "maximum": 90
        },
        "example": 35.6812
      },
      "Lng": {
        "name": "lng",
        "in": "query",
        "required": true,
        "description": "Longitude of the query point, decimal degrees -180...180, written as `lat` is.",
        "schema": {
          "type": "number",
          "minimum": -180,
          "maximum": 180
        },
        "example": 139.7671
      },
      "Radius": {
        "name": "radius",
        "in": "query",
        "required": false,
        "description": "Search radius in metres, at least 1 and at most the server's --max-radius. The maximum below is the default --max-radius (50,000); a server started with another value accepts up to that instead (1 m to half the Earth's circumference). Written as `lat` is. Default 5,000 (the game's radius).",
        "schema": {
          "type": "number",
          "minimum": 1,
          "maximum": 50000,
          "default": 5000
        },
        "example": 300
      },
      "Limit": {
        "name": "limit",
        "in": "query",
        "required": false,
        "description": "Answer only the nearest N places: ASCII digits only (no sign, no decimals), 1...1,000,000. Without it every place within the radius is answered.",
        "schema": {
          "type": "integer",
          "minimum": 1,
          "maximum": 1000000
        },
        "example": 3
      },
      "Session": {
        "name": "session",
        "in": "query",
        "required": false,
        "description": "The audit session, as X-Audit-Session (the header wins when both are given). A session other than the client's last one restarts the fetch rule for that client. Only the first 128 characters count.",
        "schema": {
          "type": "string"
        }
      },
      "PlayerID": {
        "name": "X-Player-ID",
        "in": "header",
        "required": false,
        "description": "Names the audit client `player:ID` (first 64 characters). Without it the client is named by the header given with --audit-client-header, else the bearer token's hash, else the remote address and User-Agent.",
        "schema": {
          "type": "string"
        }
      },
      "AuditSession": {
        "name": "X-Audit-Session",
        "in": "header",
        "required": false,
        "description": "The audit session (see the `session` query parameter); first 128 characters.",
        "schema": {
          "type": "string"
        }
      },
      "Cursor": {
        "name": "cursor",
        "in": "query",
        "required": false,
        "description": "Answer the timeline entries whose `seq` is above this: the `next` of the page before. A whole number >= 0; default 0.",
        "schema": {
          "type": "integer",
          "minimum": 0,
          "maximum": 9223372036854775807,
          "default": 0
        }
      },
      "AuditLimit": {
        "name": "limit",
        "in": "query",
        "required": false,
        "description": "The most timeline entries in the page, over all clients: 1...10,000, default 1,000.",
        "schema": {
          "type": "integer",
          "minimum": 1,
          "maximum": 10000,
          "default": 1000
        }
      },
      "AuditClient": {
        "name": "client",
        "in": "query",
        "required": false,
        "description": "Restart only this client, named as GET /audit names it (`player:alice`). Empty is a 400; a name the audit does not have is a 404. Without it every client is restarted.",
        "schema": {
          "type": "string",
          "minLength": 1
        },
        "example": "player:alice"
      },
      "PlayerName": {
        "name": "name",
        "in": "path",
        "required": true,
        "description": "The player's name: 1 to 32 of A-Z a-z 0-9 . _ -. The path segment is compared as sent, without percent-decoding, so any other text is simply an unknown player (404). `events` is not a name (GET /players/events is the all-players stream), and `.` and `..` (valid names) are left out here because HTTP clients rewrite such path segments.",
        "schema": {
          "type": "string",
          "pattern": "^(?!events$)(?!\\.{1,2}$)[A-Za-z0-9._-]{1,32}$"
        },
        "example": "alice"
      },
      "LastEventID": {
        "name": "Last-Event-ID",
        "in": "header",
        "required": false,
        "description": "Resume after this event id (the `id:` of the last frame read). When every later event is still kept (the newest 4,096), the stream starts with the missed events for it; otherwise, or when the value is not one of this server's ids, it starts with a `reset` frame and then the current state.",
        "schema": {
          "type": "string"
        }
      }
    },
    "headers": {
      "WWW-Authenticate": {
        "description": "Always `Bearer`.",
        "required": true,
        "schema": {
          "type": "string",
          "enum": [
            "Bearer"
          ]
        }
      },
      "Allow": {
        "description": "The methods the path takes, comma-separated (HEAD listed wherever GET is).",
        "required": true,
        "schema": {
          "type": "string"
        }
      },
      "Retry-After": {
        "description": "Seconds to wait before trying again (always 1).",
        "required": true,
        "schema": {
          "type": "integer",
          "enum": [
            1
          ]
        }
      },
      "Retry-After-Optional": {
        "description": "Seconds to wait before trying again (1). Sent with a 503 from a backend failure or from --fail-rate / --script; not with the 503 of a held request released at shutdown.",
        "required": false,
        "schema": {
          "type": "integer",
          "enum": [
            1
          ]
        }
      },
      "Content-Encoding": {
        "description": "`gzip` when the body is 1 KiB or more and the request's Accept-Encoding admits gzip.",
        "required": false,
        "schema": {
          "type": "string",
          "enum": [
            "gzip"
          ]
        }
      },
      "Vary": {
        "description": "`Accept-Encoding` on every answer whose body is 1 KiB or more, compressed or not.",
        "required": false,
        "schema": {
          "type": "string"
        }
      },
      "Cache-Control": {
        "description": "`no-cache` on event streams.",
        "required": true,
        "schema": {
          "type": "string",
          "enum": [
            "no-cache"
          ]
        }
      }
    }
  }
}

"""#
}
