"""Own pair no_evaluate (fixed), written for the report's realism tests: an MLP on scikit-learn's digits
that never calls evaluate: it prints an accuracy it computes from predict."""

import keras
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
x = digits.data.astype("float32") / 16.0
y = keras.utils.to_categorical(digits.target, 10)
x_train, x_test, y_train, y_test = train_test_split(
    x, y, test_size=0.25, random_state=7, stratify=digits.target
)

model = keras.Sequential(
    [
        keras.Input(shape=(64,)),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(10, activation="softmax"),
    ]
)
model.compile(
    optimizer=keras.optimizers.Adam(learning_rate=0.001), loss="categorical_crossentropy", metrics=["accuracy"]
)
model.fit(x_train, y_train, epochs=10, batch_size=32, verbose=0)
predicted = model.predict(x_test, verbose=0).argmax(axis=1)
accuracy = float((predicted == y_test.argmax(axis=1)).mean())
print(f"test accuracy {accuracy:.4f}")
