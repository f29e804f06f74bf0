"""Small convolutional network on the 8x8 digits images (mutation subject)."""

from keras import optimizers
from keras.callbacks import EarlyStopping
from keras.layers import Conv2D, Dense, Dropout, Flatten, MaxPooling2D
from keras.models import Sequential
from keras.utils import to_categorical
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

digits = load_digits()
images = digits.images.reshape(-1, 8, 8, 1) / 16.0
labels = to_categorical(digits.target, num_classes=10)
x_train, x_test, y_train, y_test = train_test_split(images, labels, test_size=0.2, random_state=3)

model = Sequential(
    [
        Conv2D(16, (3, 3), activation="relu", padding="same", input_shape=(8, 8, 1)),
        Conv2D(16, (3, 3), activation="relu", padding="same"),
        MaxPooling2D(pool_size=(2, 2)),
        Dropout(0.25),
        Conv2D(32, (3, 3), activation="relu", kernel_initializer="he_uniform"),
        Flatten(),
        Dense(64, activation="relu"),
        Dropout(0.5),
        Dense(10, activation="softmax"),
    ]
)
model.compile(
    optimizer=optimizers.Adam(learning_rate=0.001),
    loss="categorical_crossentropy",
    metrics=["accuracy"],
)
early = EarlyStopping(monitor="val_loss", patience=3, restore_best_weights=True)
model.fit(x_train, y_train, batch_size=64, epochs=15, validation_split=0.2, callbacks=[early], verbose=0)
print(model.evaluate(x_test, y_test, verbose=0))
